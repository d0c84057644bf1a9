package operate

import (
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
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/pkg/operate"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
	"github.com/tfgen/tfgen/test/nodeagent"
)

// agent is the package's node agent, started by the first test that
// needs it.
var agent harness.Agent

// shellImage is an image whose containers run local commands.
const shellImage = "tfgen.test/shell:1"

// startAgent starts the node agent: tfsupervisor's image holds the
// binary built for the tests, the shell image runs commands as given.
func startAgent(t testing.TB, cp *controlplane.ControlPlane) *nodeagent.Agent {
	t.Helper()
	return agent.Start(t, func() nodeagent.Config {
		return nodeagent.Config{
			RestConfig: cp.RestConfig(),
			Dir:        filepath.Join(scratch, "node"),
			Images: map[string]nodeagent.Image{
				"ghcr.io/tfgen/tfsupervisor": {Files: map[string]string{"/tfsupervisor": bins.tfsupervisor, "/tfsupervisor-wrap": bins.tfsupervisor}},
				shellImage:                   {},
			},
			Backoff:    200 * time.Millisecond,
			MaxBackoff: 2 * time.Second,
			// Room for BenchmarkResize's 200 pods.
			Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("32"), corev1.ResourceMemory: resource.MustParse("128Gi"),
				corev1.ResourcePods: resource.MustParse("500")},
		}
	})
}

// TestNodeAgent runs jobs for real: pods on the node agent, tfsupervisor
// in them writing the record, and every command on them.
func TestNodeAgent(t *testing.T) {
	t.Parallel()
	c := newCluster(t, "op-agent")
	a := startAgent(t, c.cp)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("containers' output:\n%s", a.Logs(c.ns))
		}
	})
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "train.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	c.applyYAML([]byte(strings.ReplaceAll(string(src), "@DIR@", dir)), false)
	now := time.Now()

	// Running: every replica's supervisor says so, and so does each pod.
	c.waitView("train", "every replica running", runningReplicas("ps-0", "worker-0", "worker-1"))
	c.waitView("train", "every pod running on "+a.Node(), func(v *operate.View) bool {
		for _, rep := range v.Status.Replicas {
			if rep.State != record.StateRunning || rep.Phase != "Running" || rep.Node != a.Node() || rep.Pod != "train-"+rep.Name {
				return false
			}
		}
		return len(v.Status.Replicas) == 3
	})
	// The keeper writes the counts at most once a second.
	c.poll("list: train Running 1/0/0 2/0/0", func(ctx context.Context) (bool, string, error) {
		r := c.tfgen(now, "list")
		got := withoutAge(r.stdout)
		return slices.Contains(got, "train Running 1/0/0 2/0/0"), fmt.Sprint(got), nil
	})
	if r := c.tfgen(now, "logs", "train"); r.code != 1 || !strings.HasPrefix(r.stderr, "tfgen: logs of replica worker-0 (pod train-worker-0, container tensorflow): ") {
		t.Errorf("logs without a kubelet: exit status %d, stderr %q; want 1 and why", r.code, r.stderr)
	}

	// Scale: the new worker starts with the new layout, and the replicas
	// that run restart their training in place with it (a dense
	// TF_CONFIG names every worker): no pod is recreated.
	uids := c.podUIDs("train")
	c.must(c.tfgen(now, "scale", "train", "--workers", "3"), "scale")
	c.poll("every replica with 3 workers in TF_CONFIG", func(context.Context) (bool, string, error) {
		for _, pod := range []string{"train-ps-0", "train-worker-0", "train-worker-1", "train-worker-2"} {
			if n := lastWorkers(dir, pod); n != 3 {
				return false, fmt.Sprintf("%s: %d workers", pod, n), nil
			}
		}
		return true, "", nil
	})
	c.waitView("train", "4 replicas running", runningReplicas("ps-0", "worker-0", "worker-1", "worker-2"))
	c.checkKept("train", uids, "train-ps-0", "train-worker-0", "train-worker-1")
	if s := c.job("train").Status(); s.Restarts != 0 {
		t.Errorf("%d restarts counted for a resize, want none", s.Restarts)
	}

	// Suspend stops every pod; resume starts them again, 3 workers.
	c.must(c.tfgen(now, "suspend", "train"), "suspend")
	c.job("train").WaitPods()
	c.job("train").WaitStatus("suspended, nothing running", func(s *record.Status) bool {
		return s.IsTrue(record.JobSuspended) && s.ReplicaStatuses["Worker"] != nil && s.ReplicaStatuses["Worker"].Active == 0
	})
	c.waitView("train", "suspended", func(v *operate.View) bool { return v.Status.State == "Suspended" })
	c.must(c.tfgen(now, "resume", "train"), "resume")
	c.job("train").WaitStatus("running again", func(s *record.Status) bool { return s.IsTrue(record.JobRunning) })
	c.waitView("train", "4 replicas running again", runningReplicas("ps-0", "worker-0", "worker-1", "worker-2"))

	// Done: --watch ends with the job, exit status 0.
	out, done := c.watch(now, "train")
	if err := os.WriteFile(filepath.Join(dir, "finish"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r.code != 0 || r.stderr != "" || !strings.Contains(out.String(), "State:             Succeeded\n") {
		t.Errorf("watch until success: exit status %d, stderr %q\n%s", r.code, r.stderr, out.String())
	}

	// A job that fails: --watch exits 1.
	_, done = c.watch(now, "crash")
	if r := <-done; r.code != 1 || !strings.HasPrefix(r.stderr, "tfgen: job crash failed: ") {
		t.Errorf("watch until failure: exit status %d, stderr %q", r.code, r.stderr)
	}

	// Delete waits until the node agent has stopped and removed the pods.
	for _, job := range []string{"train", "crash"} {
		c.must(c.tfgen(now, "delete", job), "delete")
		c.noObjects(job)
	}
}

// waitView waits until `tfgen status JOB -o json` satisfies cond.
func (c *cluster) waitView(job, what string, cond func(*operate.View) bool) {
	c.t.Helper()
	c.poll(job+": "+what, func(ctx context.Context) (bool, string, error) {
		var out bytes.Buffer
		if r := c.tfgenTo(ctx, &out, time.Now(), "status", job, "-o", "json"); r.code != 0 {
			return false, r.stderr, nil
		}
		v := &operate.View{}
		if err := json.Unmarshal(out.Bytes(), v); err != nil {
			return false, "", err
		}
		return cond(v), out.String(), nil
	})
}

// runningReplicas holds when exactly the replicas named run, by the
// records their supervisors keep on their pods.
func runningReplicas(names ...string) func(*operate.View) bool {
	return func(v *operate.View) bool {
		var got []string
		for _, r := range v.Status.Replicas {
			if r.State == record.StateRunning {
				got = append(got, r.Name)
			}
		}
		return slices.Equal(got, names)
	}
}

// lastWorkers returns the number of workers in the last TF_CONFIG pod
// started with, or -1.
func lastWorkers(dir, pod string) int {
	b, err := os.ReadFile(filepath.Join(dir, pod+".tfconfig"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var cfg struct {
		Cluster map[string][]string `json:"cluster"`
	}
	if err != nil || json.Unmarshal([]byte(lines[len(lines)-1]), &cfg) != nil {
		return -1
	}
	return len(cfg.Cluster["worker"])
}

// TestNodeAgentSidecarAfterTheMain: as the kubelet's computePodActions,
// the node agent starts a native sidecar again when it ends while a main
// container is to run, and not when it ends after every main container
// ended for good, when the pod is over (tfsupervisor's sidecar ends so,
// with the training container).
func TestNodeAgentSidecarAfterTheMain(t *testing.T) {
	t.Parallel()
	c := newCluster(t, "op-sidecar")
	a := startAgent(t, c.cp)
	dir := t.TempDir()
	always, never := corev1.ContainerRestartPolicyAlways, corev1.ContainerRestartPolicyNever
	pod := func(name, sidecar, main string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{
			NodeName: a.Node(), AutomountServiceAccountToken: new(bool), TerminationGracePeriodSeconds: new(int64),
			InitContainers: []corev1.Container{{Name: "sidecar", Image: shellImage, RestartPolicy: &always, Command: []string{"sh", "-c", sidecar}}},
			Containers:     []corev1.Container{{Name: "main", Image: shellImage, RestartPolicy: &never, Command: []string{"sh", "-c", main}}},
		}}
	}
	pids, release := filepath.Join(dir, "main.pid"), filepath.Join(dir, "release")
	for _, p := range []*corev1.Pod{
		// The sidecar ends once the main container's process is gone.
		pod("after", fmt.Sprintf(`while [ ! -s %[1]s ] || kill -0 "$(cat %[1]s)" 2>/dev/null; do sleep 0.02; done`, pids), fmt.Sprintf("echo $$ > %s", pids)),
		// The sidecar ends at once, while the main container waits.
		pod("during", "exit 0", fmt.Sprintf("while [ ! -e %s ]; do sleep 0.02; done", release)),
	} {
		c.poll("pod "+p.Name+" created", func(ctx context.Context) (bool, string, error) {
			_, err := c.cs.CoreV1().Pods(c.ns).Create(ctx, p, metav1.CreateOptions{})
			return err == nil, fmt.Sprint(err), nil
		})
	}
	sidecarOf := func(p *corev1.Pod) corev1.ContainerStatus {
		for _, s := range p.Status.InitContainerStatuses {
			if s.Name == "sidecar" {
				return s
			}
		}
		return corev1.ContainerStatus{}
	}
	c.poll("the sidecar ending during the main container started again", func(ctx context.Context) (bool, string, error) {
		p, err := c.cs.CoreV1().Pods(c.ns).Get(ctx, "during", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		return sidecarOf(p).RestartCount > 0, fmt.Sprintf("%+v", sidecarOf(p)), nil
	})
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"after", "during"} {
		var p *corev1.Pod
		c.poll("pod "+name+" Succeeded", func(ctx context.Context) (bool, string, error) {
			var err error
			p, err = c.cs.CoreV1().Pods(c.ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, "", err
			}
			return p.Status.Phase == corev1.PodSucceeded, string(p.Status.Phase), nil
		})
		if s := sidecarOf(p); name == "after" && (s.RestartCount != 0 || s.State.Terminated == nil) {
			t.Errorf("pod %s: its sidecar, which ended after the main container, %+v; want it ended once, not started again", name, s)
		}
	}
}
