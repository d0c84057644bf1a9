package render

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/values"
)

// clusterEnvNames are every name pkg/cluster sets in some layout.
var clusterEnvNames = []string{"TF_CONFIG", "MX_CONFIG", "DMLC_PS_ROOT_URI", "DMLC_PS_ROOT_PORT", "DMLC_NUM_SERVER", "DMLC_NUM_WORKER",
	"DMLC_ROLE", "DMLC_USE_KUBERNETES", "DMLC_WORKER_ID"}

// TestUsersEnv: in both modes, the training container keeps the user's
// env but for the variables of the cluster env that tfgen sets for its
// replica type (pkg/cluster's EnvNames, which the templates must agree
// with), and the user's POD_NAME and POD_NAMESPACE as they are; tfgen's
// own variables come first.
func TestUsersEnv(t *testing.T) {
	r := newRenderer(t)
	single := func() *job.Job { return testjob.New("one").Replica(job.Worker, 1, never, train("python")).Job() }
	tune := func() *job.Job {
		return testjob.NewMX("tune").Edit(func(j *job.Job) { j.JobMode = "MXTune" }).
			Replica(job.Tuner, 1, never, train("python")).Replica(job.TunerServer, 1, never, train("python")).Job()
	}
	for _, tc := range []struct {
		name string
		job  func() *job.Job
	}{{"tensorflow", mnist}, {"one replica", single}, {"mxnet", mxnet}, {"mxnet without a scheduler", tune}} {
		for _, mode := range []string{"wrap", "sidecar"} {
			t.Run(tc.name+", "+mode, func(t *testing.T) {
				j := tc.job()
				users := []corev1.EnvVar{{Name: "POD_NAME", Value: "users-pod"}, {Name: "POD_NAMESPACE", Value: "users-namespace"}}
				for _, n := range clusterEnvNames {
					users = append(users, corev1.EnvVar{Name: n, Value: "users-" + n})
				}
				for _, s := range j.Replicas() {
					s.Template.Spec.Containers[0].Env = users
				}
				if mode == "sidecar" {
					sidecar(j)
				}
				objs, err := r.Render(j, settings(), newest)
				if err != nil {
					t.Fatal(err)
				}
				layout := values.Layout(j, settings())
				for _, typ := range j.ReplicaTypes() {
					replaced := map[string]bool{}
					for _, n := range layout.EnvNames(typ.Lower()) {
						replaced[n] = true
					}
					want := []string{"TFGEN_POD_NAME=", "TFGEN_POD_NAMESPACE=", "POD_NAME=users-pod", "POD_NAMESPACE=users-namespace"}
					for _, n := range clusterEnvNames {
						if !replaced[n] {
							want = append(want, n+"=users-"+n)
						}
					}
					var got []string
					for _, e := range podSpec(statefulSet(t, objs, j.Name+"-"+typ.Lower()))["containers"].([]any)[0].(map[string]any)["env"].([]any) {
						e := e.(map[string]any)
						if e["name"] == "TFGEN_POD_INDEX" {
							break // the cluster env of sidecar mode follows
						}
						v, _ := e["value"].(string)
						got = append(got, e["name"].(string)+"="+v)
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("%s: env (-want +got):\n%s", typ, diff)
					}
				}
			})
		}
	}
}
