package render

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/manifest"
	"github.com/tfgen/tfgen/pkg/values"
)

// sidecar drops every training container's command.
func sidecar(j *job.Job) *job.Job {
	for _, s := range j.Replicas() {
		s.Template.Spec.Containers[0].Command = nil
	}
	return j
}

func mxnet() *job.Job {
	return testjob.NewMX("mx").
		Replica(job.Scheduler, 1, never, train("python", "train.py")).
		Replica(job.Server, 2, testjob.RestartPolicy(job.RestartOnFailure), train("python", "train.py")).
		Replica(job.Worker, 3, testjob.RestartPolicy(job.RestartExitCode), train("python", "train.py")).
		Job()
}

// TestSidecarEnvMatchesCluster renders sidecar mode and checks that the env
// the kubelet expands equals what pkg/cluster (and so tfsupervisor) computes.
func TestSidecarEnvMatchesCluster(t *testing.T) {
	r := newRenderer(t)
	tests := []struct {
		name string
		job  func() *job.Job
		set  func(*job.Settings)
	}{
		{name: "dense", job: mnist},
		{name: "dense with evaluator", job: func() *job.Job {
			return testjob.From(mnist()).Replica(job.Evaluator, 1, never, train()).Job()
		}},
		{name: "evaluator excluded, cluster domain", job: func() *job.Job {
			return testjob.From(mnist()).Replica(job.Evaluator, 1, never, train()).Job()
		}, set: func(s *job.Settings) { s.ExcludeEvaluator, s.ClusterDomain = true, "cluster.local" }},
		{name: "sparse", job: func() *job.Job { j := mnist(); j.EnableDynamicWorker = true; return j }},
		{name: "sparse without ps", job: func() *job.Job {
			j := mnist()
			j.EnableDynamicWorker = true
			delete(j.TFReplicaSpecs, job.PS)
			return j
		}},
		{name: "custom ports", job: func() *job.Job {
			j := mnist()
			j.TFReplicaSpecs[job.PS].Port = ptr(int32(3000))
			return j
		}},
		{name: "single replica", job: func() *job.Job {
			return testjob.New("one").Replica(job.Worker, 1, never, train()).Job()
		}},
		{name: "mxnet", job: mxnet},
		{name: "mxnet with tuner labels", job: func() *job.Job {
			return testjob.From(mxnet()).Replica(job.Tuner, 1, never, train(), func(s *job.ReplicaSpec) { s.Label = "cpu" }).Job()
		}},
		// Values tfgen's validation refuses but Helm's values may hold:
		// they must still reach the pod as data.
		{name: "labels with quotes, commas and $(VAR)", job: func() *job.Job {
			return testjob.From(mxnet()).Replica(job.Tuner, 1, never, train(), func(s *job.ReplicaSpec) {
				s.Label = `cpu","worker":[{"url":"evil"}],"x":"$(POD_NAME)%2C,b:c`
			}).Job()
		}},
		{name: "cluster domain with a quote and $(VAR)", job: mnist,
			set: func(s *job.Settings) { s.ClusterDomain = `local","evil:1","$(POD_NAME)` }},
		{name: "mxnet, cluster domain with a quote", job: mxnet,
			set: func(s *job.Settings) { s.ClusterDomain = `local"}],"evil":[{"url":"x` }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := sidecar(tt.job())
			s := settings()
			if tt.set != nil {
				tt.set(&s)
			}
			objs, err := r.Render(j, s, newest)
			if err != nil {
				t.Fatal(err)
			}
			layout := values.Layout(j, s)
			for _, typ := range j.ReplicaTypes() {
				env := clusterEnv(t, statefulSet(t, objs, j.Name+"-"+typ.Lower()))
				for i := int32(0); i < j.Replicas()[typ].Count(); i++ {
					want, err := layout.Env(typ.Lower(), i, "team-a")
					if err != nil {
						t.Fatal(err)
					}
					got := expand(env, i, "team-a")
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("%s-%d env (-pkg/cluster +template):\n%s", typ.Lower(), i, diff)
					}
				}
			}
		})
	}
}

func statefulSet(t *testing.T, objs []manifest.Object, name string) manifest.Object {
	t.Helper()
	for _, o := range objs {
		if o.Kind() == "StatefulSet" && o.Name() == name {
			return o
		}
	}
	t.Fatalf("no StatefulSet %s", name)
	return nil
}

// podSpec returns the pod spec of a StatefulSet or Deployment.
func podSpec(o manifest.Object) map[string]any {
	spec := o["spec"].(map[string]any)
	return spec["template"].(map[string]any)["spec"].(map[string]any)
}

// clusterEnv returns the training container's env entries after TFGEN_POD_INDEX.
func clusterEnv(t *testing.T, sts manifest.Object) []map[string]any {
	t.Helper()
	c := podSpec(sts)["containers"].([]any)[0].(map[string]any)
	var out []map[string]any
	seen := false
	for _, e := range c["env"].([]any) {
		m := e.(map[string]any)
		if seen {
			out = append(out, m)
		}
		seen = seen || m["name"] == "TFGEN_POD_INDEX"
	}
	if !seen {
		t.Fatalf("no TFGEN_POD_INDEX in %v", c["env"])
	}
	return out
}

// expand does what the kubelet does to env values: $(VAR) of a variable
// defined before (here the pod's index and namespace, and POD_NAME and
// POD_NAMESPACE as a user might define them) is replaced, $$ is a literal
// $, and anything else stays as written.
func expand(env []map[string]any, index int32, ns string) []cluster.EnvVar {
	vars := map[string]string{"TFGEN_POD_INDEX": strconv.Itoa(int(index)), "TFGEN_POD_NAMESPACE": ns, "TFGEN_POD_NAME": "the-pod",
		"POD_NAMESPACE": "the-users-namespace", "POD_NAME": "the-users-pod"}
	var out []cluster.EnvVar
	for _, e := range env {
		out = append(out, cluster.EnvVar{Name: e["name"].(string), Value: kubeletExpand(e["value"].(string), vars)})
	}
	return out
}

func kubeletExpand(s string, vars map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(s[i:], ')')
			if v, ok := vars[s[i+2:i+max(end, 2)]]; end > 0 && ok {
				b.WriteString(v)
				i += end
			} else {
				b.WriteByte('$')
			}
		default:
			b.WriteByte('$')
		}
	}
	return b.String()
}

// TestRolesFlagMatchesLayout: the --roles flag rendered for tfsupervisor
// reads back as the job's layout, whatever an MXTune label holds, so the
// supervisor, tfgen env and the sidecar's env all see the same replicas.
func TestRolesFlagMatchesLayout(t *testing.T) {
	r := newRenderer(t)
	for _, label := range []string{"cpu", "a,b", "x:1:2,worker:9:1", "100%", "%2C", `"quoted"`} {
		j := testjob.NewMX("mx").Edit(func(j *job.Job) { j.JobMode = "MXTune" }).
			Replica(job.Tuner, 1, never, train("python", "tune.py"), func(s *job.ReplicaSpec) { s.Label = label }).
			Replica(job.TunerServer, 2, never, train("python", "tune.py")).
			Replica(job.TunerTracker, 1, never, train("python", "tune.py")).
			Job()
		objs, err := r.Render(j, settings(), newest)
		if err != nil {
			t.Fatal(err)
		}
		for _, typ := range j.ReplicaTypes() {
			c := podSpec(statefulSet(t, objs, j.Name+"-"+typ.Lower()))["containers"].([]any)[0].(map[string]any)
			var roles string
			for i, a := range c["command"].([]any) {
				if a == "--roles" {
					roles = c["command"].([]any)[i+1].(string)
				}
			}
			got, err := cluster.ParseRoles(roles)
			if err != nil {
				t.Fatalf("label %q: --roles %q: %v", label, roles, err)
			}
			if diff := cmp.Diff(values.Layout(j, settings()).Roles, got); diff != "" {
				t.Errorf("label %q: --roles %q (-layout +flag):\n%s", label, roles, diff)
			}
		}
	}
}
