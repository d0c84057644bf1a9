package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/test/controlplane"
)

// WorkloadCluster is a control plane with a real node (BuildNodeImages'
// images) where tfgen's jobs run the test workload.
type WorkloadCluster struct {
	CP              *controlplane.ControlPlane
	CLI             CLI
	SupervisorImage string
	// Scratch holds the workload's reports, one directory a job; the
	// pods (any user) write them through a hostPath.
	Scratch string
}

// WorkloadJob is a Kubeflow TFJob of a chief and two workers (Roles) that
// run the workload, each run of a replica adding a line to its report;
// the chief, which decides, ends once every worker has reported.
type WorkloadJob struct {
	Name string
	// Sidecar leaves the training containers without a command.
	Sidecar        bool
	CleanPodPolicy job.CleanPodPolicy
	RestartPolicy  job.RestartPolicy
	// Exits are the workload's --exit plans (REPLICA=CODES).
	Exits []string
	// Flags are tfgen render's.
	Flags []string
}

// Roles is a WorkloadJob's layout, in the workload's --roles form.
const Roles = "chief:1:2222,worker:2:2222"

// WorkloadRun is a WorkloadJob applied to the cluster.
type WorkloadRun struct {
	*Job
	dir string
}

// Start renders spec with tfgen and applies it with kubectl into a fresh
// namespace; if t fails, the pods' logs are shown.
func (c WorkloadCluster) Start(t *testing.T, spec WorkloadJob, timeout time.Duration) *WorkloadRun {
	t.Helper()
	ns := Namespace(t, c.CP.Client(), spec.Name, nil)
	dir, err := os.MkdirTemp(c.Scratch, "reports-")
	if err == nil {
		err = os.Chmod(dir, 0o777)
	}
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--job", spec.Name, "--namespace", ns, "--roles", Roles, "--report-dir", "/reports"}
	for _, e := range spec.Exits {
		args = append(args, "--exit", e)
	}
	opts := testjob.Options(testjob.Image(WorkloadImage), testjob.RestartPolicy(spec.RestartPolicy),
		testjob.Container(func(c *corev1.Container) {
			c.ImagePullPolicy = corev1.PullNever
			c.VolumeMounts = []corev1.VolumeMount{{Name: "reports", MountPath: "/reports"}}
		}),
		testjob.Pod(func(p *corev1.PodSpec) {
			p.Volumes = []corev1.Volume{{Name: "reports", VolumeSource: corev1.VolumeSource{
				HostPath: &corev1.HostPathVolumeSource{Path: dir, Type: new(corev1.HostPathDirectory)}}}}
		}))
	if !spec.Sidecar {
		opts = testjob.Options(opts, testjob.Command(WorkloadPath))
	}
	doc := testjob.New(spec.Name).CleanPodPolicy(spec.CleanPodPolicy).
		Replica(job.Chief, 1, opts, testjob.Args(append(args, "--wait-for", "worker-0,worker-1")...)).
		Replica(job.Worker, 2, opts, testjob.Args(args...)).YAML()
	manifests := c.CLI.Tfgen.Must(t, doc, append([]string{"render", "--supervisor-image", c.SupervisorImage, "-f", "-"}, spec.Flags...)...)
	r := &WorkloadRun{Job: &Job{T: t, Client: c.CP.Client(), Namespace: ns, Name: spec.Name, Timeout: timeout, Started: time.Now()}, dir: dir}
	c.CLI.Kubectl.Must(t, c.CP.Kubeconfig(), manifests, "apply", "-n", ns, "-f", "-")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("pods of namespace %s:\n%s", ns, PodLogs(c.CP.Client(), c.CLI.Kubectl, c.CP.Kubeconfig(), ns))
		}
	})
	return r
}

// Runs is how many times each replica's workload ran, by replica
// (worker-1): the lines of its report.
func (r *WorkloadRun) Runs() map[string]int {
	r.T.Helper()
	files, _ := filepath.Glob(filepath.Join(r.dir, "*.jsonl"))
	out := map[string]int{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			r.T.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".jsonl")] = strings.Count(string(b), "\n")
	}
	return out
}
