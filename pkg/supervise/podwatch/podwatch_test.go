package podwatch

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/kube"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// fakeWatch hands out the events a test sends.
type fakeWatch struct{ events chan kube.PodEvent }

func (f fakeWatch) WatchPods(context.Context, string, string, func(string, ...any)) <-chan kube.PodEvent {
	return f.events
}

func pod(name, uid string, rec *record.Replica, labels map[string]string) *kube.Pod {
	p := &kube.Pod{}
	p.Name, p.UID, p.Labels = name, uid, labels
	if rec != nil {
		p.Annotations = rec.Annotations()
	}
	return p
}

// TestFeed: nothing before the list, then the pods as replicas (a pod
// gated by FinishedGate marked so), pods of other jobs and without an
// ordinal left out.
func TestFeed(t *testing.T) {
	w := fakeWatch{events: make(chan kube.PodEvent)}
	f := Start(t.Context(), w, "ns", "j", t.Logf)
	select {
	case <-f.Changed():
		t.Fatal("a change before the pods were listed")
	default:
	}
	ps := map[string]string{LabelReplicaType: "ps"}
	gated := pod("j-worker-1", "u2", &record.Replica{State: record.StateRunning, Restarts: 1}, nil)
	gated.Spec.SchedulingGates = []kube.SchedulingGate{{Name: "other"}, {Name: supervise.FinishedGate}}
	w.events <- kube.PodEvent{Type: kube.Synced, Pods: []*kube.Pod{
		pod("j-ps-0", "u1", &record.Replica{State: record.StateRunning}, ps),
		gated,
		pod("j-worker", "u3", nil, nil),
	}}
	<-f.Changed()
	got := map[string]supervise.Observed{}
	for _, o := range f.Replicas() {
		got[o.Ref.String()] = o
	}
	want := map[string]supervise.Observed{
		"ps-0":     {Ref: supervise.Ref{Type: "ps"}, Pod: "u1", Replica: record.Replica{State: record.StateRunning}},
		"worker-1": {Ref: supervise.Ref{Type: "worker", Index: 1}, Pod: "u2", Replica: record.Replica{State: record.StateRunning, Restarts: 1}, Gated: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replicas (-want +got):\n%s", diff)
	}
	last := record.Replica{State: record.StateStopped, LogTail: "bye\n"}
	w.events <- kube.PodEvent{Type: kube.Deleted, Pod: pod("j-ps-0", "u1", &last, ps)}
	<-f.Changed()
	if n := len(f.Replicas()); n != 1 {
		t.Errorf("%d replicas after a deletion, want 1", n)
	}
	// The deleted pod's last record, as its deletion carried it, once.
	wantGone := []supervise.Observed{{Ref: supervise.Ref{Type: "ps"}, Pod: "u1", Replica: last}}
	if diff := cmp.Diff(wantGone, f.Departed()); diff != "" {
		t.Errorf("departed (-want +got):\n%s", diff)
	}
	if d := f.Departed(); len(d) != 0 {
		t.Errorf("departed again: %v", d)
	}
}

// TestFeedFirstStart: a replica whose pod runs and carries no record yet
// runs (its supervisor reports its first start late); one whose pod is
// pending, or going, has said nothing; a record wins over the phase.
func TestFeedFirstStart(t *testing.T) {
	w := fakeWatch{events: make(chan kube.PodEvent)}
	f := Start(t.Context(), w, "ns", "j", t.Logf)
	phase := func(p *kube.Pod, ph string) *kube.Pod { p.Status.Phase = ph; return p }
	going := phase(pod("j-worker-2", "u3", nil, nil), "Running")
	going.DeletionTimestamp = "2026-11-27T00:00:00Z"
	w.events <- kube.PodEvent{Type: kube.Synced, Pods: []*kube.Pod{
		phase(pod("j-worker-0", "u1", nil, nil), "Running"),
		phase(pod("j-worker-1", "u2", nil, nil), "Pending"),
		going,
		phase(pod("j-worker-3", "u4", &record.Replica{State: record.StateSucceeded}, nil), "Running"),
	}}
	<-f.Changed()
	got := map[string]record.State{}
	for _, o := range f.Replicas() {
		got[o.Ref.String()] = o.State
	}
	want := map[string]record.State{"worker-0": record.StateRunning, "worker-1": "", "worker-2": "", "worker-3": record.StateSucceeded}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
}
