package node

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/test/harness"
)

// TestJobSucceeds: the whole flow. The StatefulSet controller makes the
// pods, the kubelet runs tfgen-install and the supervisors wrapping
// the workload; the workers finish, the parameter server and evaluator
// serve, the supervisors label their pods as Kubeflow's operator does,
// the chief (after seeing every other replica run) exits 0, the record
// says Succeeded, every StatefulSet goes to 0 (cleanPodPolicy All) and the
// pods go. Then the same manifests are applied again: the pods come back
// but nothing trains again, and the job's keeper, in the chief's new pod,
// releases them again.
func TestJobSucceeds(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	// The evaluator serves for ever: it gets no time to finish after the
	// chief's success (test/supervisor tests that time).
	r := c.startJob(t, jobSpec{name: "mnist", runPolicy: job.RunPolicy{CleanPodPolicy: job.CleanAll},
		exits:       []string{"ps=block", "evaluator=block"},
		annotations: map[string]string{"tfgen.io/evaluator-grace": "0s"},
		replicas: []replica{
			{kind: "Chief", n: 1, policy: "ExitCode", args: []string{"--wait-for", "worker-0,worker-1,ps-0,evaluator-0,gate-0"}},
			{kind: "PS", n: 1, policy: "Always"},
			{kind: "Worker", n: 2, policy: "OnFailure", args: []string{"--wait-for", "gate-1"}},
			{kind: "Evaluator", n: 1, policy: "Never"},
		}}, nil)
	// The supervisors label their pods as Kubeflow's operator does, with
	// their replica's first record: the workers' as they end (then their
	// pods go), the others' once they have run FirstStartDefer (the chief
	// waits for the test). A chief's pod is a master from its template.
	var mu sync.Mutex
	labelled, roles := map[string]bool{}, map[string]string{}
	seePods(t, c, r.Namespace, func(p *corev1.Pod) {
		_, index, _ := strings.Cut(strings.TrimPrefix(p.Name, "mnist-"), "-")
		mu.Lock()
		defer mu.Unlock()
		if p.Labels["training.kubeflow.org/replica-index"] == index {
			labelled[p.Name] = true
		}
		roles[p.Name] = p.Labels["training.kubeflow.org/job-role"]
	})
	r.open("gate-1") // the workers end
	poll(t, "every pod labelled", func(context.Context) (bool, string, error) {
		mu.Lock()
		defer mu.Unlock()
		return len(labelled) == 5, fmt.Sprintf("labelled: %v", slices.Sorted(maps.Keys(labelled))), nil
	})
	mu.Lock()
	for pod, role := range roles {
		if want := map[bool]string{true: "master", false: ""}[strings.HasPrefix(pod, "mnist-chief-")]; role != want {
			t.Errorf("pod %s: job-role %q, want %q", pod, role, want)
		}
	}
	mu.Unlock()
	r.open("gate-0")
	s := r.WaitStatus("the job to end", (*record.Status).Ended)
	if !s.IsTrue(record.JobSucceeded) {
		t.Fatalf("the job failed: %s", r.StatusJSON())
	}
	if !s.HasSucceeded("chief", 0) || s.ReplicaStatuses["Chief"].Succeeded != 1 {
		t.Errorf("status %s: want chief-0 among the succeeded", r.StatusJSON())
	}
	r.WaitReplicas(map[string]int32{"chief": 0, "evaluator": 0, "ps": 0, "worker": 0})
	r.WaitPods()
	t.Logf("pods gone after %v", time.Since(r.Started).Round(time.Millisecond))
	want := map[string]int{"chief-0": 1, "evaluator-0": 1, "ps-0": 1, "worker-0": 1, "worker-1": 1}
	if diff := cmp.Diff(want, r.runs()); diff != "" {
		t.Errorf("runs per replica (-want +got):\n%s", diff)
	}
	// The supervisors wrote the record's status.json and scaled the
	// StatefulSets; everything else is as applied: a GitOps tool sees no
	// drift but the replicas.
	if out := r.diff(func(o object) bool { return o["kind"] != "StatefulSet" }); out != "" {
		t.Errorf("kubectl diff of all but the StatefulSets after the job:\n%s", out)
	}

	// Applied again, the StatefulSets are back at their replicas and the
	// pods start; every supervisor finds the job over, and the keeper
	// releases them again.
	r.apply()
	if got := r.Replicas(); !maps.Equal(got, map[string]int32{"chief": 1, "evaluator": 1, "ps": 1, "worker": 2}) {
		t.Errorf("replicas %v right after applying again, want the job's", got)
	}
	r.WaitReplicas(map[string]int32{"chief": 0, "evaluator": 0, "ps": 0, "worker": 0})
	r.WaitPods()
	if diff := cmp.Diff(want, r.runs()); diff != "" {
		t.Errorf("runs per replica after applying again (-want +got):\n%s", diff)
	}
	reasons := r.EventReasons("")
	for _, reason := range []string{"JobSucceeded", "Teardown"} {
		if !slices.Contains(reasons, reason) {
			t.Errorf("events %v: no %s", reasons, reason)
		}
	}
	if out := r.diff(func(o object) bool { return o["kind"] != "StatefulSet" }); out != "" {
		t.Errorf("kubectl diff of all but the StatefulSets after applying again:\n%s", out)
	}
	again := r.Status()
	if !again.IsTrue(record.JobSucceeded) || again.CompletionTime == nil || !again.CompletionTime.Equal(*s.CompletionTime) {
		t.Errorf("status after applying again: %s; want it Succeeded at %v as before", r.StatusJSON(), s.CompletionTime)
	}
}

// diff runs kubectl diff on the job's objects that keep says to, and
// returns what differs from the cluster ("" if nothing does).
func (r *run) diff(keep func(object) bool) string {
	r.T.Helper()
	objs, _, err := harness.DecodeObjects(r.manifests)
	if err != nil {
		r.T.Fatal(err)
	}
	var kept []object
	for _, o := range objs {
		if keep(o) {
			kept = append(kept, o)
		}
	}
	data, err := json.Marshal(object{"apiVersion": "v1", "kind": "List", "items": kept})
	if err != nil {
		r.T.Fatal(err)
	}
	res := bins.kubectl.Run(r.c.cp.Kubeconfig(), data, "diff", "-n", r.Namespace, "-f", "-")
	if res.Err != nil && res.Stdout == "" {
		r.T.Fatalf("kubectl diff: %v\n%s", res.Err, res.Stderr)
	}
	return res.Stdout
}

// waitIdle waits until the job's pods are names, each with its
// supervisor idle.
func (r *run) waitIdle(names ...string) {
	r.T.Helper()
	r.WaitPods(names...)
	poll(r.T, fmt.Sprintf("%v idle", names), func(ctx context.Context) (bool, string, error) {
		pods, err := r.Pods(ctx)
		state := map[string]string{}
		idle := len(pods) == len(names)
		for _, p := range pods {
			state[p.Name] = p.Annotations["tfgen.io/state"]
			idle = idle && state[p.Name] == "Idle"
		}
		return idle, fmt.Sprint(state), err
	})
}

// TestChiefFailsPermanently: the chief exits 1, a permanent failure under
// ExitCode. The job fails at once, without a restart; the worker stops
// (cleanPodPolicy Running), and every StatefulSet goes to zero, the
// status keeping how each replica ended. Applied again, the chief's new
// pod does not train again.
func TestChiefFailsPermanently(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	r := c.startJob(t, jobSpec{name: "perm", exits: []string{"chief=1", "worker=block"},
		replicas: []replica{
			{kind: "Chief", n: 1, policy: "ExitCode", args: []string{"--wait-for", "worker-0"}},
			{kind: "Worker", n: 1, policy: "OnFailure"},
		}}, nil)
	s := r.WaitStatus("the job to end", (*record.Status).Ended)
	if !s.IsTrue(record.JobFailed) || s.Restarts != 0 {
		t.Fatalf("status %s: want Failed without restarts", r.StatusJSON())
	}
	if c := s.Condition(record.JobFailed); !strings.Contains(c.Message, "replica chief-0 exited with code 1") {
		t.Errorf("Failed condition %+v: want chief-0's exit in the message", c)
	}
	r.WaitReplicas(map[string]int32{"chief": 0, "worker": 0})
	r.WaitPods()
	if diff := cmp.Diff(map[string]int{"chief-0": 1, "worker-0": 1}, r.runs()); diff != "" {
		t.Errorf("runs per replica (-want +got):\n%s", diff)
	}
	// The stopped worker is not shown running (issue 14's defect 2); the
	// chief's failure is kept with its exit code.
	v := r.view()
	if diff := cmp.Diff(map[string]string{"chief-0": "Failed 1", "worker-0": "Stopped"}, v.replicaStates()); diff != "" || v.active() != 0 {
		t.Errorf("tfgen status: active %d, replicas (-want +got):\n%s", v.active(), diff)
	}
	if f := r.Status().Failures["chief-0"]; f == nil || f.ExitCode == nil || *f.ExitCode != 1 || f.Restarts != 0 {
		t.Errorf("chief-0's failure %+v, want exit code 1 without restarts", f)
	}
	// Applied again (as a GitOps tool would), the chief's new pod finds
	// the job ended: nothing trains again, and the keeper releases it.
	r.apply()
	r.WaitReplicas(map[string]int32{"chief": 0, "worker": 0})
	r.WaitPods()
	if diff := cmp.Diff(map[string]int{"chief-0": 1, "worker-0": 1}, r.runs()); diff != "" {
		t.Errorf("runs per replica after applying again (-want +got):\n%s", diff)
	}
}

// TestRetriesUntilBackoffLimit: the chief is killed (137, retryable under
// ExitCode) on every run; the supervisor restarts it until the job's
// backoffLimit of 2 is spent, then the job fails. Under cleanPodPolicy
// None nothing stops then, until the job's TTL after finishing has
// passed: then every pod goes.
func TestRetriesUntilBackoffLimit(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	r := c.startJob(t, jobSpec{name: "retry", runPolicy: job.RunPolicy{BackoffLimit: new(int32(2)), TTLSecondsAfterFinished: new(int32(2)), CleanPodPolicy: job.CleanNone},
		exits: []string{"chief=137", "worker=block"},
		replicas: []replica{
			{kind: "Chief", n: 1, policy: "ExitCode", args: []string{"--wait-for", "worker-0"}},
			{kind: "Worker", n: 1, policy: "OnFailure"},
		}}, nil)
	s := r.WaitStatus("the job to end", (*record.Status).Ended)
	if c := s.Condition(record.JobFailed); c == nil || c.Status != record.ConditionTrue || c.Reason != "BackoffLimitExceeded" {
		t.Fatalf("status %s: want Failed by BackoffLimitExceeded", r.StatusJSON())
	}
	if c := s.Condition(record.JobFailed); s.Restarts != 2 || !strings.Contains(c.Message, "replica chief-0 exited with code 137") {
		t.Errorf("restarts %d, Failed condition %+v: want 2 restarts and chief-0's exit 137", s.Restarts, c)
	}
	r.WaitReplicas(map[string]int32{"chief": 0, "worker": 0})
	r.WaitPods()
	if reasons := r.EventReasons(""); !slices.Contains(reasons, "TTLExpired") {
		t.Errorf("events %v: no TTLExpired", reasons)
	}
	if diff := cmp.Diff(map[string]int{"chief-0": 3, "worker-0": 1}, r.runs()); diff != "" {
		t.Errorf("runs per replica (-want +got):\n%s", diff)
	}
}

// TestActiveDeadline: every replica trains forever; two seconds after the
// job started it fails with DeadlineExceeded, and everything stops: under
// cleanPodPolicy Running too, since a replica cut short by the deadline was
// running (whichever replica sees the deadline first).
func TestActiveDeadline(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	r := c.startJob(t, jobSpec{name: "deadline", runPolicy: job.RunPolicy{ActiveDeadlineSeconds: new(int64(2)), CleanPodPolicy: job.CleanRunning}, exits: []string{"*=block"},
		replicas: []replica{
			{kind: "Chief", n: 1, policy: "ExitCode"},
			{kind: "Worker", n: 1, policy: "OnFailure"},
		}}, nil)
	s := r.WaitStatus("the job to end", (*record.Status).Ended)
	if c := s.Condition(record.JobFailed); c == nil || c.Status != record.ConditionTrue || c.Reason != "DeadlineExceeded" {
		t.Fatalf("status %s: want Failed by DeadlineExceeded", r.StatusJSON())
	}
	if s.StartTime == nil || s.CompletionTime == nil || s.CompletionTime.Sub(s.StartTime.Time) < 2*time.Second {
		t.Errorf("start %v, completion %v: want the job to end 2s after it started at the earliest", s.StartTime, s.CompletionTime)
	}
	r.WaitReplicas(map[string]int32{"chief": 0, "worker": 0})
	r.WaitPods()
	for replica, n := range r.runs() {
		if n != 1 {
			t.Errorf("%s ran %d times, want once", replica, n)
		}
	}
}

// TestMXJobSucceeds: an MXNet job (scheduler, server, workers) gets
// MX_CONFIG and DMLC_* right and succeeds when its scheduler does, which
// ps-lite's scheduler does once the workers are done (as in Kubeflow).
func TestMXJobSucceeds(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	r := c.startJob(t, jobSpec{name: "mx", mxnet: true, exits: []string{"server=block"},
		replicas: []replica{
			{kind: "Scheduler", n: 1, policy: "Never", args: []string{"--wait-for", "server-0,worker-0,worker-1"}},
			{kind: "Server", n: 1, policy: "Never"},
			{kind: "Worker", n: 2, policy: "OnFailure"},
		}}, nil)
	s := r.WaitStatus("the job to end", (*record.Status).Ended)
	if !s.IsTrue(record.JobSucceeded) {
		t.Fatalf("the job failed: %s", r.StatusJSON())
	}
	r.WaitReplicas(map[string]int32{"scheduler": 0, "server": 0, "worker": 0})
	if diff := cmp.Diff(map[string]int{"scheduler-0": 1, "server-0": 1, "worker-0": 1, "worker-1": 1}, r.runs()); diff != "" {
		t.Errorf("runs per replica (-want +got):\n%s", diff)
	}
}

func containerStatus(p *corev1.Pod, name string) corev1.ContainerStatus {
	for _, s := range p.Status.ContainerStatuses {
		if s.Name == name {
			return s
		}
	}
	return corev1.ContainerStatus{}
}

// TestSidecarPodAfterTheJobHolds: in sidecar mode the kubelet runs the
// image's entrypoint, which tfsupervisor cannot hold back; so the init
// container tfgen-hold first checks that the replica may train. A pod
// recreated after the job ended (as an eviction or a drain would) idles in
// its init container, and its training container never starts.
func TestSidecarPodAfterTheJobHolds(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	r := c.startJob(t, jobSpec{name: "hold", runPolicy: job.RunPolicy{CleanPodPolicy: job.CleanNone}, replicas: []replica{
		{kind: "Worker", n: 2, policy: "OnFailure", sidecar: true, args: []string{"--wait-for", "worker-0,worker-1"}},
	}}, nil)
	s := r.WaitStatus("the job to end", (*record.Status).Ended)
	if !s.IsTrue(record.JobSucceeded) {
		t.Fatalf("the job failed: %s", r.StatusJSON())
	}
	pods := c.cp.Client().CoreV1().Pods(r.Namespace)
	old, err := pods.Get(t.Context(), "hold-worker-1", getOpts)
	if err != nil {
		t.Fatal(err)
	}
	if err := pods.Delete(t.Context(), old.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "hold-worker-1 replaced and idle", func(ctx context.Context) (bool, string, error) {
		p, err := pods.Get(ctx, "hold-worker-1", getOpts)
		if err != nil {
			return false, "", err
		}
		return p.UID != old.UID && p.Annotations["tfgen.io/state"] == "Idle", string(p.UID) + " " + p.Annotations["tfgen.io/state"], nil
	})
	p, err := pods.Get(t.Context(), "hold-worker-1", getOpts)
	if err != nil {
		t.Fatal(err)
	}
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name == "tensorflow" && (cs.State.Waiting == nil || cs.RestartCount != 0) {
			t.Errorf("the new pod's training container started: %+v", cs.State)
		}
	}
	if diff := cmp.Diff(map[string]int{"worker-0": 1, "worker-1": 1}, r.runs()); diff != "" {
		t.Errorf("runs per replica (-want +got):\n%s", diff)
	}
}
