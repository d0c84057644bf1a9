package node

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/operate"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/test/controlplane"
)

// kueueReadiness is the suite's Kueue waitForPodsReady, on as from v0.19
// (where both timeouts are 30 minutes): Timeout long enough for an
// admitted job's pods to start on this busy node, RecoveryTimeout shorter,
// so that a job admitted after some pods stopped being Ready, and evicted
// Timeout later, shows that RecoveryTimeout has passed for those pods.
var kueueReadiness = &controlplane.KueueWaitForPodsReady{Timeout: time.Minute, RecoveryTimeout: 20 * time.Second, BackoffBaseSeconds: 5}

// finishingJob is a chief, a parameter server and two workers under Kueue
// (queue q): the workers succeed once the test opens gate-1, the chief,
// which decides the job, once it opens gate-0; the parameter server
// serves until the job ends.
func finishingJob(name string, sidecar bool) jobSpec {
	wait := func(gate string) []string { return []string{"--wait-for", gate, "--wait-timeout", "10m"} }
	return jobSpec{name: name, labels: map[string]string{"kueue.x-k8s.io/queue-name": "q"},
		exits: []string{"ps=block"},
		replicas: []replica{
			{kind: "Chief", n: 1, policy: "Never", sidecar: sidecar, args: wait("gate-0"), edits: []testjob.Option{kueueRequests}},
			{kind: "PS", n: 1, policy: "Never", sidecar: sidecar, edits: []testjob.Option{kueueRequests}},
			{kind: "Worker", n: 2, policy: "OnFailure", sidecar: sidecar, args: wait("gate-1"), edits: []testjob.Option{kueueRequests}},
		}}
}

// stuckJob is one worker under Kueue whose image does not exist: its pod
// can never start.
func stuckJob(name string) jobSpec {
	return jobSpec{name: name, labels: map[string]string{"kueue.x-k8s.io/queue-name": "q"},
		replicas: []replica{{kind: "Worker", n: 1, policy: "Never",
			edits: []testjob.Option{kueueRequests, testjob.Image("tfgen.test/no-such-image:1")}}}}
}

// podsReady: Kueue admitted the workload and found all its pods Ready.
func podsReady(w *kueueWorkload) bool { return admitted(w) && w.isTrue("PodsReady") != nil }

// waitingForRecovery: Kueue found the admitted workload's pods no longer
// all Ready, and waits RecoveryTimeout for them to be again.
func waitingForRecovery(w *kueueWorkload) bool {
	for _, c := range w.Status.Conditions {
		if c.Type == "PodsReady" && c.Status == metav1.ConditionFalse && c.Reason == "WaitForRecovery" {
			return admitted(w)
		}
	}
	return false
}

// evictions returns how many times tfgen status says Kueue evicted the
// job for reason, and what Kueue said of the last time.
func evictions(a *operate.Admission, reason string) (int32, string) {
	if a != nil {
		for _, e := range a.Evictions {
			if e.Reason == reason {
				return e.Count, e.Message
			}
		}
	}
	return 0, ""
}

// waitEvicted waits until tfgen status says Kueue evicted the job for
// reason, and returns its admission.
func (r *run) waitEvicted(reason string) *operate.Admission {
	r.T.Helper()
	var a *operate.Admission
	poll(r.T, "tfgen status to say Kueue evicted the job for "+reason, func(context.Context) (bool, string, error) {
		a = r.view().Admission
		n, _ := evictions(a, reason)
		return n > 0, fmt.Sprintf("%+v", a), nil
	})
	return a
}

// podUIDs maps each of the job's pods to its UID.
func (r *run) podUIDs() map[string]string {
	r.T.Helper()
	pods, err := r.Pods(r.T.Context())
	if err != nil {
		r.T.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range pods {
		out[p.Name] = string(p.UID)
	}
	return out
}

// podReady returns the kubelet's Ready condition of pod, nil if it has none.
func (r *run) podReady(pod string) *corev1.PodCondition {
	r.T.Helper()
	p, err := r.Client.CoreV1().Pods(r.Namespace).Get(r.T.Context(), pod, getOpts)
	if err != nil {
		r.T.Fatal(err)
	}
	for i, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// TestKueueWaitForPodsReady: Kueue's waitForPodsReady (kueueReadiness)
// and jobs whose replicas finish at different times.
//
// A job in wrap mode and one in sidecar mode are admitted, their pods all
// Ready; then their workers succeed, long before their chiefs: the
// workers' pods stay, held for the job (tfsupervisor --hold-finished).
// Then a job whose image does not exist is admitted: Kueue evicts it for
// the PodsReady timeout, deletes its pod, and admits it again once its
// StatefulSet has made the pod again, and tfgen status says so. That
// eviction, Timeout after it was admitted, shows that RecoveryTimeout has
// passed since the workers finished.
//
// In wrap mode a finished replica's pod stays Ready (its supervisor
// lingers in the training container), so the job is never evicted: its
// workload is the same, Ready since before the workers finished, and the
// job succeeds with every replica run once.
//
// In sidecar mode a finished replica's training container has ended, so
// its pod is not Ready, and no pod shape keeps it so without running the
// image's entrypoint again: Kueue evicts the job once RecoveryTimeout has
// passed (README, Kueue). The test pins what then happens: no replica is
// failed or restarted against its policy, the finished workers do not run
// again (their pods wait in tfgen-hold), the chief and the parameter
// server run again once Kueue admits the job again, and the job succeeds.
func TestKueueWaitForPodsReady(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	q := c.newKueueQueue(t, "1")
	wrap := q.startJob(t, finishingJob("wrap", false))
	side := q.startJob(t, finishingJob("side", true))
	ready := map[*run]*kueueWorkload{}
	for _, r := range []*run{wrap, side} {
		ready[r] = r.waitWorkload("the job admitted, every pod Ready", podsReady)
		r.open("gate-1")
	}
	held := map[*run]map[string]string{}
	for _, r := range []*run{wrap, side} {
		r.WaitStatus("the workers succeeded", func(s *record.Status) bool { return s.HasSucceeded("worker", 0) && s.HasSucceeded("worker", 1) })
		held[r] = r.podUIDs()
	}
	stuck := q.startJob(t, stuckJob("stuck"))

	t.Run("sidecar", func(t *testing.T) {
		r := side
		r.T = t
		r.waitWorkload("Kueue waiting for the finished workers' pods to be Ready again", waitingForRecovery)
		if a := r.view().Admission; a == nil || a.NotReady == nil || a.NotReady.Reason != "WaitForRecovery" {
			t.Errorf("tfgen status: admission %+v, want its pods not all Ready (WaitForRecovery)", a)
		}
		a := r.waitEvicted("PodsReadyTimeout")
		if n, _ := evictions(a, "PodsReadyTimeout"); n != 1 {
			t.Errorf("tfgen status: evictions %+v, want one for PodsReadyTimeout", a.Evictions)
		}
		if s := r.Status(); s.Ended() || s.Restarts != 0 || len(s.Failures) != 0 {
			t.Errorf("the evicted job ended or counts restarts or failures: %s", r.StatusJSON())
		}
		// The chief and the parameter server run again only once Kueue has
		// admitted the job again; the parameter server serves again before
		// the chief may succeed.
		poll(t, "chief-0 and ps-0 running again", func(context.Context) (bool, string, error) {
			reps := r.reports()
			return len(reps["chief-0"]) == 2 && len(reps["ps-0"]) == 2, fmt.Sprintf("%d and %d runs", len(reps["chief-0"]), len(reps["ps-0"])), nil
		})
		r.open("gate-0")
		if s := r.WaitStatus("the job to end", (*record.Status).Ended); !s.IsTrue(record.JobSucceeded) || s.Restarts != 0 || len(s.Failures) != 0 {
			t.Fatalf("job %s did not succeed without a restart: %s", r.Name, r.StatusJSON())
		}
		want := map[string]int{"chief-0": 2, "ps-0": 2, "worker-0": 1, "worker-1": 1}
		if got := r.runs(); !maps.Equal(got, want) {
			t.Errorf("runs per replica %v, want %v: a finished worker ran again, or the chief did not run again", got, want)
		}
		r.WaitPods()
	})

	t.Run("cannot start", func(t *testing.T) {
		r := stuck
		r.T = t
		r.waitWorkload("the job admitted", admitted)
		first := r.podUIDs()[r.Name+"-worker-0"]
		a := r.waitEvicted("PodsReadyTimeout")
		if _, msg := evictions(a, "PodsReadyTimeout"); !strings.Contains(msg, "PodsReady timeout") {
			t.Errorf("tfgen status: evictions %+v, want Kueue's word on the PodsReady timeout", a.Evictions)
		}
		poll(t, "its pod made again and admitted again", func(ctx context.Context) (bool, string, error) {
			p, err := r.Client.CoreV1().Pods(r.Namespace).Get(ctx, r.Name+"-worker-0", getOpts)
			if err != nil {
				return false, "", err
			}
			gated := slices.ContainsFunc(p.Spec.SchedulingGates, func(g corev1.PodSchedulingGate) bool { return g.Name == kueueGate })
			return string(p.UID) != first && !gated, fmt.Sprintf("pod %s, gates %v", p.UID, p.Spec.SchedulingGates), nil
		})
		poll(t, "tfgen status to say why worker-0 cannot start", func(context.Context) (bool, string, error) {
			reps := r.view().Replicas
			return len(reps) == 1 && reps[0].Reason == "ErrImageNeverPull", fmt.Sprintf("%+v", reps), nil
		})
		out, _ := r.cli("status", r.Name)
		if !strings.Contains(out, "Evictions:") || !strings.Contains(out, "PodsReadyTimeout: ") {
			t.Errorf("tfgen status does not say Kueue evicted the job for the PodsReady timeout:\n%s", out)
		}
		if s := r.Status(); s.Ended() {
			t.Errorf("the evicted job ended: %s", r.StatusJSON())
		}
		if reps := r.reports(); len(reps) > 0 {
			t.Errorf("a replica whose image does not exist ran: %v", reps)
		}
	})

	t.Run("wrap", func(t *testing.T) {
		r := wrap
		r.T = t
		w := r.waitWorkload("the job's workload", admitted)
		was := ready[r].isTrue("PodsReady")
		if now := w.isTrue("PodsReady"); w.Metadata.UID != ready[r].Metadata.UID || now == nil || !now.LastTransitionTime.Equal(&was.LastTransitionTime) {
			t.Errorf("%s (PodsReady %+v); want the workload admitted before, Ready since %v", w, now, was.LastTransitionTime)
		}
		if a := r.view().Admission; a == nil || len(a.Evictions) > 0 || a.NotReady != nil {
			t.Errorf("tfgen status: admission %+v, want no eviction, every pod Ready", a)
		}
		if got := r.podUIDs(); !maps.Equal(got, held[r]) {
			t.Errorf("pods %v, want the pods the workers finished in, %v", got, held[r])
		}
		for _, pod := range []string{r.Name + "-worker-0", r.Name + "-worker-1"} {
			if c := r.podReady(pod); c == nil || c.Status != corev1.ConditionTrue {
				t.Errorf("finished pod %s: Ready %+v, want True", pod, c)
			}
		}
		r.open("gate-0")
		if s := r.WaitStatus("the job to end", (*record.Status).Ended); !s.IsTrue(record.JobSucceeded) || s.Restarts != 0 {
			t.Fatalf("job %s did not succeed without a restart: %s", r.Name, r.StatusJSON())
		}
		want := map[string]int{"chief-0": 1, "ps-0": 1, "worker-0": 1, "worker-1": 1}
		if got := r.runs(); !maps.Equal(got, want) {
			t.Errorf("runs per replica %v, want %v", got, want)
		}
		r.WaitPods()
	})
}
