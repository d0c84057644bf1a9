package node

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/test/harness"
)

// replica is one replica type of a test job, run by the test workload.
type replica struct {
	kind    string // the dialect's replica type: Chief, PS, Worker, Scheduler...
	n       int
	policy  job.RestartPolicy
	sidecar bool     // no command: the image's entrypoint, sidecar mode
	args    []string // further workload flags of this type
	// edits change the pod spec or the training container further
	// (securityContext...).
	edits []testjob.Option
}

// jobSpec is a test job: a Kubeflow TFJob (or MXJob) whose replicas run
// the workload, every one with the same --exit plan.
type jobSpec struct {
	name      string
	mxnet     bool
	runPolicy job.RunPolicy
	// successPolicy of the job ("" or AllWorkers).
	successPolicy job.SuccessPolicy
	replicas      []replica
	exits         []string // --exit REPLICA=CODES
	flags         []string // of tfgen render
	// annotations and labels of the job, if any.
	annotations, labels map[string]string
	// noReports: the pods get no hostPath for the workload's reports (the
	// restricted Pod Security Standard forbids it), so --wait-for fails.
	noReports bool
}

// roles is the layout the workload expects, in --roles form.
func (j jobSpec) roles() string {
	port := 2222
	if j.mxnet {
		port = 9091
	}
	var out []string
	for _, r := range j.replicas {
		out = append(out, fmt.Sprintf("%s:%d:%d", strings.ToLower(r.kind), r.n, port))
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// manifest is the job as a user writes it, for namespace ns, reporting
// into dir.
func (j jobSpec) manifest(ns, dir string) []byte {
	b := testjob.New(j.name)
	if j.mxnet {
		b = testjob.NewMX(j.name)
	}
	b.Edit(func(x *job.Job) {
		x.Annotations, x.Labels = j.annotations, j.labels
		x.RunPolicy, x.SuccessPolicy = j.runPolicy, j.successPolicy
	})
	for _, r := range j.replicas {
		args := []string{"--job", j.name, "--namespace", ns, "--roles", j.roles()}
		if !j.noReports {
			args = append(args, "--report-dir", "/reports")
		}
		if j.mxnet {
			args = append(args, "--framework", "mxnet")
		}
		for _, e := range j.exits {
			args = append(args, "--exit", e)
		}
		opts := []testjob.Option{testjob.RestartPolicy(r.policy), testjob.Image(workloadImage), testjob.Args(append(args, r.args...)...),
			testjob.Container(func(c *corev1.Container) { c.ImagePullPolicy = corev1.PullNever })}
		if !r.sidecar {
			opts = append(opts, testjob.Command(workloadPath))
		}
		if !j.noReports {
			opts = append(opts, testjob.Container(func(c *corev1.Container) {
				c.VolumeMounts = []corev1.VolumeMount{{Name: "reports", MountPath: "/reports"}}
			}), testjob.Pod(func(p *corev1.PodSpec) {
				p.Volumes = []corev1.Volume{{Name: "reports", VolumeSource: corev1.VolumeSource{
					HostPath: &corev1.HostPathVolumeSource{Path: dir, Type: new(corev1.HostPathDirectory)}}}}
			}))
		}
		b.Replica(job.ReplicaType(r.kind), int32(r.n), append(opts, r.edits...)...)
	}
	return b.YAML()
}

// run is a test job applied to the cluster; its waits take waitTimeout
// at most, and WaitStatus logs how long after the apply the job got there.
type run struct {
	*harness.Job
	c         *cluster
	spec      jobSpec
	dir       string         // the workload's reports
	manifests []byte         // tfgen render's output
	applied   harness.Result // what the first kubectl apply said
}

// startJob renders the job with tfgen and applies it with kubectl into a
// fresh namespace with labels.
func (c *cluster) startJob(t *testing.T, spec jobSpec, labels map[string]string) *run {
	t.Helper()
	r := c.render(t, spec, c.namespace(t, "job", labels))
	r.Started = time.Now()
	r.applied = r.apply()
	return r
}

// render renders the job with tfgen for namespace ns.
func (c *cluster) render(t *testing.T, spec jobSpec, ns string) *run {
	t.Helper()
	r := &run{Job: &harness.Job{T: t, Client: c.cp.Client(), Namespace: ns, Name: spec.name, Timeout: waitTimeout},
		c: c, spec: spec, dir: reportDir(t)}
	r.manifests = bins.tfgen.Must(t, spec.manifest(ns, r.dir), append([]string{"render", "--supervisor-image", supervisorImage, "-f", "-"}, spec.flags...)...)
	return r
}

// apply applies the job's manifests (again).
func (r *run) apply() harness.Result {
	r.T.Helper()
	return bins.kubectl.Must(r.T, r.c.cp.Kubeconfig(), r.manifests, "apply", "-n", r.Namespace, "-f", "-")
}

var getOpts = metav1.GetOptions{}

// object is one Kubernetes object as plain data.
type object = map[string]any

// report is one line of the workload's reports (test/workload.Report).
type report struct {
	Pod      string   `json:"pod"`
	Replica  string   `json:"replica"`
	Run      int      `json:"run"`
	OK       bool     `json:"ok"`
	Problems []string `json:"problems"`
	Exit     string   `json:"exit"`
	TFConfig string   `json:"tfConfig"`
	MXConfig string   `json:"mxConfig"`
	// Credentials the training process could read: the token file and
	// the account it is for.
	Credentials []string `json:"credentials"`
}

// reports reads every run of every replica, by replica (worker-1).
func (r *run) reports() map[string][]report {
	r.T.Helper()
	files, _ := filepath.Glob(filepath.Join(r.dir, "*.jsonl"))
	out := map[string][]report{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			r.T.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			var rep report
			if err := json.Unmarshal(sc.Bytes(), &rep); err != nil {
				r.T.Fatalf("%s: %v", f, err)
			}
			out[rep.Replica] = append(out[rep.Replica], rep)
		}
	}
	return out
}

// runs returns how many times each replica ran, and fails t for every run
// whose environment was wrong.
func (r *run) runs() map[string]int {
	r.T.Helper()
	out := map[string]int{}
	for replica, reps := range r.reports() {
		out[replica] = len(reps)
		for _, rep := range reps {
			if !rep.OK {
				r.T.Errorf("%s run %d: wrong environment: %s", replica, rep.Run, strings.Join(rep.Problems, "; "))
			}
		}
	}
	return out
}

// open opens gate: a replica whose --wait-for names it (gate-0, say)
// goes on once it has reported itself.
func (r *run) open(gate string) {
	r.T.Helper()
	if err := os.WriteFile(filepath.Join(r.dir, gate+".jsonl"), nil, 0o644); err != nil {
		r.T.Fatal(err)
	}
}

// reportDir is a directory for the workload's reports that every pod's
// user may write to.
func reportDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp(scratch, "reports-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return dir
}

// waitReport waits until the workload of pod (J-TYPE-INDEX) has reported
// its current run: it is past its checks and in its exit plan.
func (r *run) waitReport(pod string) {
	r.T.Helper()
	replica := strings.TrimPrefix(pod, r.Name+"-")
	poll(r.T, replica+"'s report", func(context.Context) (bool, string, error) {
		n := len(r.reports()[replica])
		return n > 0, fmt.Sprintf("%d reports", n), nil
	})
}
