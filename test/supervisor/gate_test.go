package supervisor

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
	"github.com/tfgen/tfgen/test/harness"
)

// The gate of finished replicas (pkg/supervise/gate.go), re-driven from
// the job's state: a keeper killed while a gate or a lift is pending, and
// calls refused for a while.

// template returns the scheduling gates of type t's pod template, and the
// StatefulSet's generation and the generation its controller has seen.
func (j *job) template(t string) (gates []string, generation, observed int64) {
	j.T.Helper()
	s, err := j.Client.AppsV1().StatefulSets(j.Namespace).Get(j.T.Context(), j.Name+"-"+t, metav1.GetOptions{})
	if err != nil {
		j.T.Fatal(err)
	}
	for _, g := range s.Spec.Template.Spec.SchedulingGates {
		gates = append(gates, g.Name)
	}
	return gates, s.Generation, s.Status.ObservedGeneration
}

// waitTemplate waits until type t's template and StatefulSet satisfy
// cond.
func (j *job) waitTemplate(what, t string, cond func(gates []string, generation, observed int64) bool) {
	j.T.Helper()
	harness.Poller{Interval: 50 * time.Millisecond, Timeout: j.Timeout}.Poll(j.T, what, func(context.Context) (bool, string, error) {
		gates, gen, seen := j.template(t)
		return cond(gates, gen, seen), fmt.Sprintf("gates %v, generation %d, observed %d", gates, gen, seen), nil
	})
}

// podGates returns the scheduling gates of pod.
func (j *job) podGates(pod string) []string {
	j.T.Helper()
	p, err := j.Client.CoreV1().Pods(j.Namespace).Get(j.T.Context(), pod, metav1.GetOptions{})
	if err != nil {
		j.T.Fatal(err)
	}
	var out []string
	for _, g := range p.Spec.SchedulingGates {
		out = append(out, g.Name)
	}
	return out
}

// remake deletes pod and makes it again as its StatefulSet does from a
// gated template: gated, so not yet bound to a node.
func (j *job) remake(pod string) {
	j.T.Helper()
	if err := j.Client.CoreV1().Pods(j.Namespace).Delete(j.T.Context(), pod, *metav1.NewDeleteOptions(0)); err != nil {
		j.T.Fatal(err)
	}
	p := j.podObject(pod)
	p.Spec.NodeName = ""
	p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: supervise.FinishedGate}}
	if _, err := j.Client.CoreV1().Pods(j.Namespace).Create(j.T.Context(), p, metav1.CreateOptions{}); err != nil {
		j.T.Fatal(err)
	}
}

// TestGatePendingWhenKeeperKilled: worker-0 succeeds below worker-1, so
// the keeper gates the workers' pod template. The keeper is SIGKILLed
// while that gate is pending: patched, its StatefulSet's controller not
// yet having seen it (the stand-in held); or not yet patched, the job's
// Role refusing the patch. The keeper started again takes the gate up
// from the job's state, its first attempt failing too, and records
// nothing meanwhile; once the controller sees the gate or the Role is
// restored it finishes it: the workers are recorded gated, the template
// carries the gate once, and the job then ends with every replica
// counted, its types released.
func TestGatePendingWhenKeeperKilled(t *testing.T) {
	for _, pending := range []string{"patched", "refused"} {
		t.Run(pending, func(t *testing.T) {
			l := newLarge(t, "chief:1:2222,worker:2:2222", map[string]int32{"chief": 1, "worker": 2})
			g := newGates(t, "chief-0", "worker-0", "worker-1")
			for _, r := range []string{"chief-0", "worker-0", "worker-1"} {
				l.wrap("j-"+r, l.kubeconfig, g.script(r), nil)
			}
			k := l.keeper()
			l.running(0, "j-chief-0", "j-worker-0", "j-worker-1")
			failedGate := "gate worker's pods (" + supervise.FinishedGate + ") (attempt 1)"
			var rules []rbacv1.PolicyRule
			if pending == "refused" {
				rules = l.refuse("statefulsets", "patch")
			} else {
				l.sts.hold()
			}
			g.open("worker-0", 1, 0)
			if pending == "refused" {
				k.p.out.waitLine(t, failedGate)
				harness.Poller{Interval: 100 * time.Millisecond, Timeout: time.Minute}.Poll(t, "the refusal warned of", func(context.Context) (bool, string, error) {
					for _, e := range l.Events(l.keeperName("0")) {
						if e.Reason == supervise.ReasonTeardownFailed && strings.Contains(e.Note, "gate worker's pods") {
							return true, e.Note, nil
						}
					}
					return false, "no such Event", nil
				})
			} else {
				l.waitTemplate("the gate patched, not yet observed", "worker", func(gates []string, gen, seen int64) bool {
					return slices.Contains(gates, supervise.FinishedGate) && seen < gen
				})
			}
			k.kill()
			s := l.Status()
			gates, _, _ := l.template("worker")
			wantGates := []string{supervise.FinishedGate}
			if pending == "refused" {
				wantGates = nil
			}
			if !s.HasSucceeded("worker", 0) || slices.Contains(s.Gated, "worker") || !slices.Equal(gates, wantGates) {
				t.Fatalf("status %s, template gates %v as the keeper died: want worker-0 succeeded, the workers not yet gated, gates %v",
					l.StatusJSON(), gates, wantGates)
			}
			k.start()
			// The new keeper's first attempt, from state, fails too: refused,
			// or (patched again, to no change) not seen by the controller in
			// its time; the workers are not recorded gated meanwhile.
			k.p.out.waitLine(t, failedGate)
			if s := l.Status(); slices.Contains(s.Gated, "worker") {
				t.Errorf("status %s: the workers recorded gated before the gate was %s", l.StatusJSON(), map[string]string{"refused": "patched", "patched": "observed"}[pending])
			}
			if pending == "refused" {
				l.restoreRules(rules)
			} else {
				l.sts.resume()
			}
			l.WaitStatus("the workers gated", func(s *record.Status) bool { return slices.Contains(s.Gated, "worker") })
			if gates, gen, seen := l.template("worker"); !slices.Equal(gates, []string{supervise.FinishedGate}) || seen < gen {
				t.Errorf("workers' template gates %v, generation %d observed %d: want the gate once, observed", gates, gen, seen)
			}
			g.open("worker-1", 1, 0)
			g.open("chief-0", 1, 0)
			s = l.WaitStatus("the job to end", (*record.Status).Ended)
			want := map[string]*record.ReplicaStatus{"Chief": {Succeeded: 1}, "Worker": {Succeeded: 2}}
			if diff := cmp.Diff(want, s.ReplicaStatuses); diff != "" || !s.IsTrue(record.JobSucceeded) {
				t.Errorf("status %s: want Succeeded, replicas (-want +got):\n%s", l.StatusJSON(), diff)
			}
			l.released("chief", "worker")
			l.keeperReleased()
		})
	}
}

// TestLiftRefusedThenRestored: once the workers are gated (worker-0
// finished below the others), the pods of worker-0 and of worker-2 (which
// never started: say it was evicted first) are made again from the gated
// template while the job's Role may not patch pods. The keeper's lift of
// worker-2's gate is refused; it is killed and started again, its first
// lift refused too; once the rule is back it lifts worker-2's gate, never
// worker-0's (finished). worker-2's pod is then bound, trains and
// succeeds, and the job ends with every worker counted once.
func TestLiftRefusedThenRestored(t *testing.T) {
	l := newLarge(t, "chief:1:2222,worker:3:2222", map[string]int32{"chief": 1, "worker": 3})
	g := newGates(t, "chief-0", "worker-0", "worker-1", "worker-2")
	w0 := l.wrap("j-worker-0", l.kubeconfig, g.script("worker-0"), nil)
	for _, r := range []string{"chief-0", "worker-1"} {
		l.wrap("j-"+r, l.kubeconfig, g.script(r), nil)
	}
	k := l.keeper()
	l.running(0, "j-chief-0", "j-worker-0", "j-worker-1")
	g.open("worker-0", 1, 0)
	l.WaitStatus("the workers gated", func(s *record.Status) bool { return slices.Contains(s.Gated, "worker") })
	// worker-0's pod goes, its supervisors with it, as does worker-2's.
	w0.sidecar.kill()
	w0.training.kill()
	rules := l.refuse("pods", "patch")
	l.remake("j-worker-0")
	l.remake("j-worker-2")
	refusedLift := "lift the gate of pod j-worker-2 (attempt 1)"
	k.p.out.waitLine(t, refusedLift)
	k.kill()
	for _, p := range []string{"j-worker-0", "j-worker-2"} {
		if gates := l.podGates(p); !slices.Equal(gates, []string{supervise.FinishedGate}) {
			t.Fatalf("%s's gates %v with the lift refused: want %s", p, gates, supervise.FinishedGate)
		}
	}
	k.start()
	k.p.out.waitLine(t, refusedLift) // the new keeper's, from state
	l.restoreRules(rules)
	harness.Poller{Interval: 50 * time.Millisecond, Timeout: time.Minute}.Poll(t, "worker-2's gate lifted", func(context.Context) (bool, string, error) {
		gates := l.podGates("j-worker-2")
		return len(gates) == 0, fmt.Sprintf("gates %v", gates), nil
	})
	// The scheduler's part: binding a gated pod is refused.
	bind := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "j-worker-2"}, Target: corev1.ObjectReference{Kind: "Node", Name: "node-1"}}
	if err := l.Client.CoreV1().Pods(l.Namespace).Bind(t.Context(), bind, metav1.CreateOptions{}); err != nil {
		t.Fatalf("bind worker-2's pod once its gate is lifted: %v", err)
	}
	l.wrap("j-worker-2", l.kubeconfig, g.script("worker-2"), nil)
	g.open("worker-2", 1, 0) // once it trains
	g.open("worker-1", 1, 0)
	g.open("chief-0", 1, 0)
	s := l.WaitStatus("the job to end", (*record.Status).Ended)
	want := map[string]*record.ReplicaStatus{"Chief": {Succeeded: 1}, "Worker": {Succeeded: 3}}
	if diff := cmp.Diff(want, s.ReplicaStatuses); diff != "" || !s.IsTrue(record.JobSucceeded) {
		t.Errorf("status %s: want Succeeded, replicas (-want +got):\n%s", l.StatusJSON(), diff)
	}
	l.released("chief", "worker")
	l.keeperReleased()
	if s := l.Status(); s.Succeeded["worker"].String() != "0-2" {
		t.Errorf("status %s: want every worker in the succeeded set", l.StatusJSON())
	}
	if gates := l.podGates("j-worker-0"); !slices.Equal(gates, []string{supervise.FinishedGate}) {
		t.Errorf("finished worker-0's pod made again has gates %v: want %s kept", gates, supervise.FinishedGate)
	}
}
