package supervise_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

func exit(code int) *supervise.Exit {
	reason := "Error"
	if code == 0 {
		reason = "Completed"
	}
	return &supervise.Exit{Code: code, Reason: reason}
}

// kubelet lists the statuses the kubelet reports for a container that
// exits with codes, restarted after each but the last.
func kubelet(uid string, codes ...int) []supervise.ContainerStatus {
	var out []supervise.ContainerStatus
	var last *supervise.Exit
	for i, c := range codes {
		n := int32(i)
		out = append(out,
			supervise.ContainerStatus{PodUID: uid, RestartCount: n, Running: true, LastTerminated: last},
			supervise.ContainerStatus{PodUID: uid, RestartCount: n, Terminated: exit(c), LastTerminated: last})
		last = exit(c)
	}
	return out
}

func (f *fixture) watch(ctx context.Context, statuses []supervise.ContainerStatus) supervise.Result {
	ch := make(chan supervise.ContainerStatus, len(statuses))
	for _, s := range statuses {
		ch <- s
	}
	close(ch)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-f.rep.idle():
			cancel()
		case <-ctx.Done():
		}
	}()
	w := &supervise.Watcher{Config: f.cfg, Statuses: ch, Store: f.store, Reporter: f.rep, Teardown: f.td, Clock: f.clock}
	return w.Run(ctx)
}

func TestWatcherCountsEachExitOnce(t *testing.T) {
	cfg := config(supervise.OnFailure)
	cfg.Layout, cfg.Self, cfg.BackoffLimit = layout(), supervise.Ref{Type: "worker", Index: 1}, ptr[int32](2)
	f := newFixture(t, cfg, true)
	ctx := context.Background()
	sts := kubelet("pod-a", 1)
	// The pod is seen again (a re-list) after each status: duplicates.
	var replay []supervise.ContainerStatus
	for _, s := range sts {
		replay = append(replay, s, s)
	}
	f.watch(ctx, replay)
	s := f.status(t)
	if s.Restarts != 1 || s.Ended() {
		t.Fatalf("after 1 exit: restarts %d, ended %v; want 1, false", s.Restarts, s.Ended())
	}
	// The Watcher restarts (its container did) and sees everything again,
	// then two more exits: it still counts each once and hits the limit.
	f.watch(ctx, append(replay, kubelet("pod-a", 1, 2, 3)...))
	s = f.status(t)
	if s.Restarts != 2 {
		t.Errorf("restarts %d, want 2", s.Restarts)
	}
	if c := s.Condition(record.JobFailed); c == nil || c.Reason != supervise.ReasonBackoffLimitExceeded {
		t.Errorf("Failed condition %+v, want BackoffLimitExceeded", c)
	}
	if diff := cmp.Diff([][]string{{"chief", "ps", "worker"}}, f.td.calls); diff != "" {
		t.Errorf("teardown (-want +got):\n%s", diff)
	}
}

func TestWatcherNewPodCountsAgain(t *testing.T) {
	cfg := config(supervise.ExitCode)
	f := newFixture(t, cfg, true)
	ctx := context.Background()
	f.watch(ctx, kubelet("pod-a", 137, 0)[:3])
	f.watch(ctx, kubelet("pod-b", 137, 0))
	s := f.status(t)
	if s.Restarts != 2 || !s.IsTrue(record.JobSucceeded) {
		t.Errorf("restarts %d, conditions %+v: want 2 restarts and success", s.Restarts, s.Conditions)
	}
}

func TestWatcherSuccess(t *testing.T) {
	cfg := config(supervise.OnFailure)
	cfg.Layout, cfg.Self = layout(), supervise.Ref{Type: "chief"}
	f := newFixture(t, cfg, true)
	ctx := context.Background()
	res := f.watch(ctx, kubelet("pod-a", 0))
	if res.ExitCode != 0 || res.Reason != "Idle" {
		t.Errorf("Result %+v", res)
	}
	want := []string{"ReplicaExited", "JobSucceeded", "Teardown", "ReplicaIdle"}
	if diff := cmp.Diff(want, f.rep.events()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]string{{"ps", "worker"}}, f.td.calls); diff != "" {
		t.Errorf("teardown (-want +got):\n%s", diff)
	}
}
