package supervisor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
	"github.com/tfgen/tfgen/test/harness"
)

// Faults the job's end must survive: each test ends with the job's right
// outcome, every exit counted, and every StatefulSet at zero.

// wrapped is a wrap-mode replica as tfgen renders it: tfsupervisor watch
// --socket, the pod's native sidecar (the API rights), and tfsupervisor
// run --socket wrapping script in the training container, which holds no
// credentials. The job's keeper runs in a pod of its own (keeper).
type wrapped struct {
	j          *job
	pod        string
	kubeconfig string
	socket     string
	flags      []string
	sidecar    *proc
	training   *proc
}

// wrap starts pod's two supervisors; script gets env, both get flags.
func (j *job) wrap(pod, kubeconfig, script string, env []string, flags ...string) *wrapped {
	j.T.Helper()
	w := &wrapped{j: j, pod: pod, kubeconfig: kubeconfig, socket: filepath.Join(j.T.TempDir(), "s.sock"), flags: flags}
	w.startSidecar()
	cmd := j.supervisor(pod, "", append(append([]string{"run", "--socket", w.socket}, flags...), "--", "sh", "-c", script)...)
	cmd.Path = wrapBin
	cmd.Env = append(cmd.Env, env...)
	w.training = start(j.T, cmd)
	return w
}

// startSidecar starts the pod's sidecar, again after it was killed, as
// the kubelet restarts a native sidecar.
func (w *wrapped) startSidecar() {
	w.sidecar = start(w.j.T, w.j.supervisor(w.pod, w.kubeconfig, append([]string{"watch", "--socket", w.socket}, w.flags...)...))
}

// gates are named pipes a test's training processes wait on: run n of
// replica r reads one line from $GATES/r.n and exits with the code it says.
// A pipe of its own per run: a writer may not meet a reader on its way out.
type gates struct {
	t   *testing.T
	dir string
}

// maxRuns is how many runs of a replica the gates serve.
const maxRuns = 3

func newGates(t *testing.T, replicas ...string) gates {
	g := gates{t: t, dir: t.TempDir()}
	for _, r := range replicas {
		for n := 1; n <= maxRuns; n++ {
			if err := syscall.Mkfifo(filepath.Join(g.dir, fmt.Sprintf("%s.%d", r, n)), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	return g
}

// script is replica's training process: each run counts itself and exits
// with the code its gate gives.
func (g gates) script(replica string) string {
	return fmt.Sprintf(`f=%q; n=$(($(cat "$f.count" 2>/dev/null || echo 0) + 1)); echo $n > "$f.count"; read code < "$f.$n"; exit ${code:-0}`,
		filepath.Join(g.dir, replica))
}

// open lets replica's run n exit with code; it returns once the run has
// read it.
func (g gates) open(replica string, n, code int) {
	g.t.Helper()
	f, err := os.OpenFile(filepath.Join(g.dir, fmt.Sprintf("%s.%d", replica, n)), os.O_WRONLY, 0)
	if err != nil {
		g.t.Fatal(err)
	}
	defer f.Close()
	if _, err := fmt.Fprintln(f, code); err != nil {
		g.t.Fatal(err)
	}
}

// ps is a parameter server: it serves until SIGTERM, then exits 0.
const ps = `trap 'exit 0' TERM; sleep 100000 & wait $!`

// running waits until every pod's record says Running (after restarts
// restarts, at least).
func (j *job) running(restarts int32, pods ...string) {
	j.T.Helper()
	j.WaitRecords("the replicas running", pods, func(r record.Replica) bool {
		return r.State == record.StateRunning && r.Restarts >= restarts
	})
}

// released waits until every StatefulSet of the job is at zero.
func (j *job) released(types ...string) {
	j.T.Helper()
	want := map[string]int32{}
	for _, t := range types {
		want[t] = 0
	}
	j.WaitReplicas(want)
}

// TestKeeperKilledMidJob: the keeper (its pod's only container) and a
// worker's sidecar are SIGKILLed mid-job; while they are down one worker
// succeeds and the other fails and restarts (under backoffLimit, so it
// waits for the new keeper's grant), the failure reported by its training
// container once its sidecar is back. The new keeper counts every exit,
// gates the workers' pods (worker-0 finished below worker-1), the chief's
// success ends the job, and every StatefulSet goes to zero, the keeper's
// own last.
func TestKeeperKilledMidJob(t *testing.T) {
	j := newJob(t, "chief:1:2222,ps:1:2222,worker:2:2222", map[string]int32{"chief": 1, "ps": 1, "worker": 2})
	g := newGates(t, "chief-0", "worker-0", "worker-1")
	kc := j.cp.Kubeconfig()
	flags := []string{"--restart-policy", "OnFailure", "--backoff-limit", "3"}
	pods := map[string]*wrapped{}
	for _, r := range []string{"chief-0", "ps-0", "worker-0", "worker-1"} {
		j.pod("j-" + r)
		script := ps
		if r != "ps-0" {
			script = g.script(r)
		}
		pods[r] = j.wrap("j-"+r, kc, script, nil, flags...)
	}
	k := j.keeper(flags...)
	j.running(0, "j-chief-0", "j-ps-0", "j-worker-0", "j-worker-1")
	k.kill()
	pods["worker-1"].sidecar.kill()
	g.open("worker-0", 1, 0)
	g.open("worker-1", 1, 1)
	j.WaitRecords("worker-0's success", []string{"j-worker-0"}, func(r record.Replica) bool { return r.State == record.StateSucceeded })
	pods["worker-1"].startSidecar()
	j.WaitRecords("worker-1's failure", []string{"j-worker-1"}, func(r record.Replica) bool { return r.State == record.StateRestarting })
	k.start()
	j.running(1, "j-worker-1") // granted by the new keeper
	j.WaitStatus("the workers gated", func(s *record.Status) bool { return slices.Contains(s.Gated, "worker") })
	g.open("worker-1", 2, 0)
	g.open("chief-0", 1, 0)
	j.WaitStatus("the job to end", (*record.Status).Ended)
	j.released("chief", "ps", "worker")
	j.keeperReleased()
	s := j.Status()
	want := map[string]*record.ReplicaStatus{"Chief": {Succeeded: 1}, "PS": {Succeeded: 1}, "Worker": {Succeeded: 2}}
	if diff := cmp.Diff(want, s.ReplicaStatuses); diff != "" || !s.IsTrue(record.JobSucceeded) || s.Restarts != 1 {
		t.Errorf("status %s: want Succeeded, 1 restart, replicas (-want +got):\n%s", j.StatusJSON(), diff)
	}
	if !slices.Equal(s.Gated, []string{"worker"}) {
		t.Errorf("status %s: want the workers gated (worker-0 finished below worker-1)", j.StatusJSON())
	}
	if r := j.Record("j-worker-1"); r.Restarts != 1 || r.State != record.StateSucceeded {
		t.Errorf("worker-1's record %+v: want Succeeded after 1 restart", r)
	}
}

// TestTeardownRefusedThenRestored: the job's Role loses its rule to scale
// the StatefulSets before the job ends. The keeper records the release
// and warns, the StatefulSets staying as they were; it is then killed,
// the rule restored, and the new keeper finishes the teardown, its own
// StatefulSet last.
func TestTeardownRefusedThenRestored(t *testing.T) {
	l := newLarge(t, "chief:1:2222,ps:1:2222,worker:1:2222", map[string]int32{"chief": 1, "ps": 1, "worker": 1})
	g := newGates(t, "chief-0", "worker-0")
	l.wrap("j-chief-0", l.kubeconfig, g.script("chief-0"), nil)
	l.wrap("j-ps-0", l.kubeconfig, ps, nil)
	l.wrap("j-worker-0", l.kubeconfig, g.script("worker-0"), nil)
	k := l.keeper()
	l.running(0, "j-chief-0", "j-ps-0", "j-worker-0")
	rules := l.refuse("statefulsets/scale", "patch")
	g.open("worker-0", 1, 0)
	g.open("chief-0", 1, 0)
	s := l.WaitStatus("every type released", func(s *record.Status) bool { return len(s.Teardown) == 4 })
	if !s.IsTrue(record.JobSucceeded) || s.Teardown[3] != supervise.KeeperType {
		t.Errorf("status %s: want Succeeded, every type released, the keeper's own last", l.StatusJSON())
	}
	harness.Poller{Interval: 100 * time.Millisecond, Timeout: time.Minute}.Poll(t, "the refusal warned of", func(context.Context) (bool, string, error) {
		reasons := l.EventReasons(l.keeperName("0"))
		return slices.Contains(reasons, "TeardownFailed"), fmt.Sprint(reasons), nil
	})
	if got := l.Replicas(); got["chief"] != 1 || got["ps"] != 1 || got["worker"] != 1 {
		t.Fatalf("replicas %v with the scale refused", got)
	}
	k.kill()
	l.restoreRules(rules)
	k.start()
	l.released("chief", "ps", "worker")
	l.keeperReleased()
	if s := l.Status(); !s.HasSucceeded("worker", 0) || !s.HasSucceeded("chief", 0) {
		t.Errorf("status %s: want the chief and the worker in the succeeded set", l.StatusJSON())
	}
}

// refuse takes verb on resource out of the job Role's rules, and returns
// the rules as they were.
func (l *large) refuse(resource, verb string) []rbacv1.PolicyRule {
	l.T.Helper()
	roles := l.Client.RbacV1().Roles(l.Namespace)
	role, err := roles.Get(l.T.Context(), "j-tfjob", metav1.GetOptions{})
	if err != nil {
		l.T.Fatal(err)
	}
	before := slices.Clone(role.Rules)
	var rules []rbacv1.PolicyRule
	for _, r := range role.Rules {
		if slices.Contains(r.Resources, resource) {
			r.Verbs = slices.DeleteFunc(slices.Clone(r.Verbs), func(v string) bool { return v == verb })
		}
		if len(r.Verbs) > 0 {
			rules = append(rules, r)
		}
	}
	role.Rules = rules
	if _, err := roles.Update(l.T.Context(), role, metav1.UpdateOptions{}); err != nil {
		l.T.Fatal(err)
	}
	// The authorizer follows Roles through a cache: wait until it refuses
	// what the rule allowed (its group, and its first name if it has any:
	// a request with no name never matches a rule of names).
	attrs := &authorizationv1.ResourceAttributes{Namespace: l.Namespace, Verb: verb}
	attrs.Resource, attrs.Subresource, _ = strings.Cut(resource, "/")
	for _, r := range before {
		if slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, verb) {
			attrs.Group = r.APIGroups[0]
			if len(r.ResourceNames) > 0 {
				attrs.Name = r.ResourceNames[0]
			}
		}
	}
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: "system:serviceaccount:" + l.Namespace + ":j-tfjob", ResourceAttributes: attrs}}
	harness.Poller{Interval: 50 * time.Millisecond, Timeout: time.Minute}.Poll(l.T, verb+" "+resource+" refused", func(ctx context.Context) (bool, string, error) {
		got, err := l.Client.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
		if err != nil {
			return false, "", err
		}
		return !got.Status.Allowed, fmt.Sprintf("allowed %v", got.Status.Allowed), nil
	})
	return before
}

// restoreRules gives the job's Role rules.
func (l *large) restoreRules(rules []rbacv1.PolicyRule) {
	l.T.Helper()
	roles := l.Client.RbacV1().Roles(l.Namespace)
	role, err := roles.Get(l.T.Context(), "j-tfjob", metav1.GetOptions{})
	if err != nil {
		l.T.Fatal(err)
	}
	role.Rules = rules
	if _, err := roles.Update(l.T.Context(), role, metav1.UpdateOptions{}); err != nil {
		l.T.Fatal(err)
	}
}

// TestRecordRefusedThenRestored: the chief, which decides, succeeds
// while the job's Role may not patch pods, so its record cannot reach its
// pod. The keeper, which decides from the replicas' records on their pods
// alone, lets the job run meanwhile. Once the rule is back the record
// lands, the job ends Succeeded with every replica counted, and the types
// go, the keeper's own last.
func TestRecordRefusedThenRestored(t *testing.T) {
	l := newLarge(t, "chief:1:2222,worker:1:2222", map[string]int32{"chief": 1, "worker": 1})
	g := newGates(t, "chief-0", "worker-0")
	chief := l.wrap("j-chief-0", l.kubeconfig, g.script("chief-0"), nil)
	l.wrap("j-worker-0", l.kubeconfig, g.script("worker-0"), nil)
	l.keeper()
	l.running(0, "j-chief-0", "j-worker-0")
	g.open("worker-0", 1, 0)
	l.WaitRecords("worker-0's success", []string{"j-worker-0"}, func(r record.Replica) bool { return r.State == record.StateSucceeded })
	rules := l.refuse("pods", "patch")
	g.open("chief-0", 1, 0)
	chief.sidecar.out.waitLine(t, "report state on pod j-chief-0") // refused; trying again
	if s := l.Status(); s.Ended() || len(s.Teardown) > 0 {
		t.Errorf("status %s while the chief's record could not reach its pod (%+v): want the job running", l.StatusJSON(), l.Record("j-chief-0"))
	}
	l.restoreRules(rules)
	s := l.WaitStatus("the job to end", (*record.Status).Ended)
	want := map[string]*record.ReplicaStatus{"Chief": {Succeeded: 1}, "Worker": {Succeeded: 1}}
	if diff := cmp.Diff(want, s.ReplicaStatuses); diff != "" || !s.IsTrue(record.JobSucceeded) || !s.HasSucceeded("chief", 0) {
		t.Errorf("status %s: want Succeeded by the chief, replicas (-want +got):\n%s", l.StatusJSON(), diff)
	}
	l.released("chief", "worker")
	l.keeperReleased()
	if r := l.Record("j-chief-0"); r.State != record.StateSucceeded {
		t.Errorf("the chief's record %+v once its type was released: want Succeeded", r)
	}
}

// TestAPIServerDown: the API server stops for 10 s mid-job; meanwhile a
// worker fails and restarts, another succeeds, and the chief succeeds.
// Once it is back, the job ends Succeeded with every exit counted, and
// every StatefulSet goes to zero.
func TestAPIServerDown(t *testing.T) {
	j := newJob(t, "chief:1:2222,ps:1:2222,worker:2:2222", map[string]int32{"chief": 1, "ps": 1, "worker": 2})
	g := newGates(t, "chief-0", "worker-0", "worker-1")
	kc := j.cp.Kubeconfig()
	flags := []string{"--restart-policy", "OnFailure"}
	for _, r := range []string{"chief-0", "ps-0", "worker-0", "worker-1"} {
		j.pod("j-" + r)
		script := ps
		if r != "ps-0" {
			script = g.script(r)
		}
		j.wrap("j-"+r, kc, script, nil, flags...)
	}
	j.keeper(flags...)
	j.running(0, "j-chief-0", "j-ps-0", "j-worker-0", "j-worker-1")
	j.cp.StopAPIServer()
	outage := time.After(10 * time.Second) // the fault: how long the API is gone
	g.open("worker-1", 1, 1)               // restarted at once: no backoff limit
	g.open("worker-1", 2, 0)
	g.open("worker-0", 1, 0)
	g.open("chief-0", 1, 0)
	<-outage
	if err := j.cp.StartAPIServer(t.Context()); err != nil {
		t.Fatal(err)
	}
	s := j.Within(2*time.Minute).WaitStatus("the job to end", (*record.Status).Ended)
	j.Within(2 * time.Minute).WaitReplicas(map[string]int32{"chief": 0, "ps": 0, "worker": 0})
	want := map[string]*record.ReplicaStatus{"Chief": {Succeeded: 1}, "PS": {Succeeded: 1}, "Worker": {Succeeded: 2}}
	// The exits may reach the keeper in any order once the API is back:
	// the workers' records, if late, are counted then.
	defer func() {
		if t.Failed() {
			for _, p := range []string{"j-worker-0", "j-worker-1", "j-chief-0"} {
				t.Logf("%s: %+v", p, j.Record(p))
			}
		}
	}()
	s = j.WaitStatus("every exit counted", func(s *record.Status) bool {
		return s.Restarts == 1 && s.HasSucceeded("worker", 0) && s.HasSucceeded("worker", 1)
	})
	if diff := cmp.Diff(want, s.ReplicaStatuses); diff != "" || !s.IsTrue(record.JobSucceeded) {
		t.Errorf("status %s: want Succeeded, replicas (-want +got):\n%s", j.StatusJSON(), diff)
	}
	// The chief decided the job: its type went only once its record had
	// reached its pod.
	if r := j.Record("j-chief-0"); r.State != record.StateSucceeded {
		t.Errorf("the chief's record %+v after its type was released: want Succeeded", r)
	}
}

// TestStopIgnoredSIGTERM: a worker whose training process ignores SIGTERM
// when the job ends is killed after its grace period, recorded Stopped,
// and its StatefulSet released with the rest.
func TestStopIgnoredSIGTERM(t *testing.T) {
	j := newJob(t, "chief:1:2222,worker:1:2222", map[string]int32{"chief": 1, "worker": 1})
	g := newGates(t, "chief-0")
	kc := j.cp.Kubeconfig()
	j.pod("j-chief-0")
	j.pod("j-worker-0")
	j.wrap("j-chief-0", kc, g.script("chief-0"), nil)
	// Both the shell and its sleep ignore SIGTERM (an ignored signal stays
	// ignored across exec).
	j.wrap("j-worker-0", kc, `trap '' TERM; echo deaf; sleep 100000`, nil, "--grace-period", "2s")
	j.keeper()
	j.running(0, "j-chief-0", "j-worker-0")
	g.open("chief-0", 1, 0)
	j.WaitRecords("the worker killed", []string{"j-worker-0"}, func(r record.Replica) bool { return r.State == record.StateStopped })
	r := j.Record("j-worker-0")
	if r.Reason != "JobEnded" || r.LastExitCode == nil || *r.LastExitCode != 137 || !strings.Contains(r.LogTail, "deaf") {
		t.Errorf("worker-0's record %+v: want Stopped (JobEnded) by SIGKILL (137), its output kept", r)
	}
	j.released("chief", "worker")
	if s := j.Status(); !s.IsTrue(record.JobSucceeded) {
		t.Errorf("status %s: want Succeeded", j.StatusJSON())
	}
}
