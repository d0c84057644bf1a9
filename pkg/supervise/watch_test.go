package supervise_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
	"github.com/tfgen/tfgen/pkg/supervise/report"
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

// watch runs a Watcher in pod over statuses until the job's status
// satisfies until (the test runs the keeper); prev is the pod's record
// left by an earlier Watcher.
func (f *fixture) watch(t *testing.T, pod string, prev *record.Replica, statuses []supervise.ContainerStatus, until func(*record.Status) bool) {
	t.Helper()
	ch := make(chan supervise.ContainerStatus, len(statuses))
	for _, s := range statuses {
		ch <- s
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &supervise.Watcher{Config: f.cfg, Statuses: ch, Status: f.store, Reporter: report.Multi{f.rep, f.board.PodReporter(f.cfg.Self, pod)},
		Clock: f.clock, Previous: prev}
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Run(ctx)
	}()
	waitStatus(t, f.store, "the job's status", until)
	cancel()
	<-done
}

func TestWatcherCountsEachExitOnce(t *testing.T) {
	cfg := config(supervise.OnFailure)
	cfg.Job.Layout, cfg.Self, cfg.Job.BackoffLimit = layout(), supervise.Ref{Type: "worker", Index: 1}, ptr[int32](2)
	f := newFixture(t, cfg, true)
	stop := f.keep(t)
	sts := kubelet("pod-a", 1)
	// The pod is seen again (a re-list) after each status: duplicates.
	var replay []supervise.ContainerStatus
	for _, s := range sts {
		replay = append(replay, s, s)
	}
	f.watch(t, "pod-a", nil, replay, func(s *record.Status) bool { return s.Restarts == 1 })
	if s := f.status(t); s.Ended() {
		t.Fatalf("after 1 exit: %+v; want the job running", s)
	}
	// The Watcher restarts (its container did) and sees everything again,
	// then two more exits: it still counts each once and hits the limit.
	prev := f.replica(t)
	f.watch(t, "pod-a", &prev, append(replay, kubelet("pod-a", 1, 2, 3)...), (*record.Status).Ended)
	stop() // the keeper is done with the teardown
	s := f.status(t)
	if s.Restarts != 2 {
		t.Errorf("restarts %d, want 2", s.Restarts)
	}
	if c := s.Condition(record.JobFailed); c == nil || c.Reason != supervise.ReasonBackoffLimitExceeded {
		t.Errorf("Failed condition %+v, want BackoffLimitExceeded", c)
	}
	if diff := cmp.Diff([]string{"chief to 0", "ps to 0", "worker to 0", "keeper to 0"}, f.sc.scaledTo()); diff != "" {
		t.Errorf("scaled (-want +got):\n%s", diff)
	}
}

// TestWatcherNewPodCountsAgain: the restarts of a pod that is replaced
// stay counted for the job; the new pod counts its own from zero.
func TestWatcherNewPodCountsAgain(t *testing.T) {
	cfg := config(supervise.ExitCode)
	f := newFixture(t, cfg, true)
	f.keep(t)
	f.watch(t, "pod-a", nil, kubelet("pod-a", 137, 0)[:3], func(s *record.Status) bool { return s.Restarts == 1 })
	f.watch(t, "pod-b", nil, kubelet("pod-b", 137, 0), func(s *record.Status) bool { return s.Ended() })
	s := f.status(t)
	if s.Restarts != 2 || s.RestartsOfGonePods != 1 || !s.IsTrue(record.JobSucceeded) {
		t.Errorf("restarts %d (%d of gone pods), conditions %+v: want 2 (1) and success", s.Restarts, s.RestartsOfGonePods, s.Conditions)
	}
	if e := f.replica(t); e.Restarts != 1 || e.State != record.StateSucceeded {
		t.Errorf("the new pod's record %+v, want Succeeded after 1 restart", e)
	}
}

func TestWatcherSuccess(t *testing.T) {
	cfg := config(supervise.OnFailure)
	cfg.Job.Layout, cfg.Self = layout(), supervise.Ref{Type: "chief"}
	f := newFixture(t, cfg, true)
	stop := f.keep(t)
	f.watch(t, "pod-a", nil, kubelet("pod-a", 0), (*record.Status).Ended)
	stop()
	if got := f.rep.events(); len(got) != 0 {
		t.Errorf("the replica's events %v, want none for a success", got)
	}
	if diff := cmp.Diff([]string{"JobSucceeded", "Teardown"}, f.jobRep.events()); diff != "" {
		t.Errorf("the keeper's events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"chief to 0", "ps to 0", "worker to 0", "keeper to 0"}, f.sc.scaledTo()); diff != "" {
		t.Errorf("scaled (-want +got):\n%s", diff)
	}
}

// TestWatcherSeesTwoExitsAtOnce: the kubelet restarted the container and
// it exited again between two looks at the pod; the restart counts.
func TestWatcherSeesTwoExitsAtOnce(t *testing.T) {
	f := newFixture(t, config(supervise.ExitCode), true)
	stop := f.keep(t)
	sts := kubelet("pod-a", 137, 0)
	f.watch(t, "pod-a", nil, []supervise.ContainerStatus{sts[0], sts[3]}, (*record.Status).Ended)
	stop()
	if s := f.status(t); s.Restarts != 1 || !s.IsTrue(record.JobSucceeded) {
		t.Errorf("restarts %d, conditions %+v: want 1 restart and success", s.Restarts, s.Conditions)
	}
	if e := f.replica(t); e.Restarts != 1 || e.State != record.StateSucceeded {
		t.Errorf("the replica's record %+v, want Succeeded after 1 restart", e)
	}
}

// TestHold: a sidecar-mode pod's init container lets the training
// container start in a running job, and holds it, reporting the replica
// Idle, once the job has ended or the replica has succeeded.
func TestHold(t *testing.T) {
	cases := []struct {
		name  string
		ended bool
		prev  *record.Replica
		held  bool
	}{
		{name: "running job", held: false},
		{name: "ended job", ended: true, held: true},
		{name: "succeeded here before", prev: &record.Replica{State: record.StateSucceeded}, held: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, config(supervise.OnFailure), true)
			if tc.ended {
				if _, err := f.store.Update(context.Background(), func(s *record.Status) error {
					s.SetCondition(record.JobSucceeded, supervise.ReasonJobSucceeded, "done", time.Now())
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			held, err := supervise.Hold(context.Background(), f.cfg, f.store, f.rep, tc.prev)
			if err != nil || held != tc.held {
				t.Fatalf("Hold = %v, %v; want %v", held, err, tc.held)
			}
			idled := false
			for _, e := range f.rep.events() {
				idled = idled || e == supervise.ReasonReplicaIdle
			}
			if want := tc.held && tc.prev == nil; idled != want {
				t.Errorf("reported Idle: %v, want %v", idled, want)
			}
		})
	}
}

// TestWatcherDisruption: in sidecar mode, the training container killed
// while its pod is deleted, evicted or preempted (137 after the grace
// period) is Stopped: it counts neither as a failure nor as a restart,
// also with no restart left; the replica's new pod trains as if nothing
// happened. The same exit with no disruption is an OOM kill, which
// backoffLimit caps.
func TestWatcherDisruption(t *testing.T) {
	for _, why := range []string{"deleted", "DisruptionTarget: EvictionByEvictionAPI", "DisruptionTarget: PreemptionByScheduler", "Evicted", ""} {
		t.Run(why, func(t *testing.T) {
			cfg := config(supervise.ExitCode)
			cfg.Job.BackoffLimit, cfg.Policy.MaxRestarts = ptr[int32](0), ptr[int32](0)
			f := newFixture(t, cfg, true)
			stop := f.keep(t)
			killed := kubelet("pod-a", 137)
			killed[1].Disruption = why
			if why == "" {
				f.watch(t, "pod-a", nil, killed, (*record.Status).Ended)
				if c := f.status(t).Condition(record.JobFailed); c == nil {
					t.Errorf("an OOM kill with no restart left: %+v, want the job failed", f.status(t).Conditions)
				}
				return
			}
			f.watch(t, "pod-a", nil, killed, func(s *record.Status) bool {
				return s.StartTime != nil && s.ReplicaStatuses["Worker"] != nil && s.ReplicaStatuses["Worker"].Active == 0
			})
			if s, r := f.status(t), f.replica(t); s.Ended() || s.Restarts != 0 || len(s.Failures) != 0 || r.State != record.StateStopped || r.Reason != supervise.ReasonDisrupted {
				t.Fatalf("after the disruption: job %+v, restarts %d, failures %v; replica %+v", s.Conditions, s.Restarts, s.Failures, r)
			}
			f.watch(t, "pod-b", nil, kubelet("pod-b", 0), (*record.Status).Ended)
			stop()
			if s := f.status(t); !s.IsTrue(record.JobSucceeded) || s.Restarts != 0 {
				t.Errorf("the new pod: conditions %+v, restarts %d; want success with no restart counted", s.Conditions, s.Restarts)
			}
		})
	}
}

// TestWatcherStoppedAwaitsTeardown: in sidecar mode a parameter server
// still running when the chief succeeds cannot be stopped by its watcher;
// the watcher says Stopped at once, so under cleanPodPolicy Running the
// keeper releases the PS at once instead of after settleTimeout.
func TestWatcherStoppedAwaitsTeardown(t *testing.T) {
	cfg := config(supervise.Never)
	cfg.Job.Layout, cfg.Self = layout(), supervise.Ref{Type: "ps"}
	f := newFixture(t, cfg, true)
	f.keep(t)
	// The PS's container runs; then the chief succeeds.
	statuses := make(chan supervise.ContainerStatus, 1)
	statuses <- supervise.ContainerStatus{PodUID: "pod-ps", Running: true}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &supervise.Watcher{Config: f.cfg, Statuses: statuses, Status: f.store, Reporter: report.Multi{f.rep, f.board.PodReporter(f.cfg.Self, "pod-ps")},
		Clock: f.clock}
	go w.Run(ctx)
	waitStatus(t, f.store, "the job started", func(s *record.Status) bool { return s.StartTime != nil })
	f.board.PodReporter(supervise.Ref{Type: "chief"}, "pod-chief").Report(supervise.Report{Replica: record.Replica{State: record.StateSucceeded}})
	// The workers never ran: they go at once. settleTimeout is a minute,
	// and the keeper's clock is the real one.
	f.sc.await(t, "chief to 0", "worker to 0", "ps to 0", "keeper to 0")
	if e := f.replica(t); e.State != record.StateStopped {
		t.Errorf("the PS's record %+v, want Stopped", e)
	}
}

// TestWatcherCompletesOnceReleased: with Complete, the Watcher of a
// training container that ran in its pod and exited 0 returns once the
// job gives the pod back, Released.
func TestWatcherCompletesOnceReleased(t *testing.T) {
	cfg := config(supervise.Never)
	cfg.Job.Layout = &cluster.Layout{Job: "j", Roles: []cluster.Role{{Type: "worker", Replicas: 1, Port: 2222}}}
	f := newFixture(t, cfg, true)
	stop := f.keep(t)
	defer stop()
	ch := make(chan supervise.ContainerStatus, 2)
	for _, s := range kubelet("pod-a", 0) {
		ch <- s
	}
	w := &supervise.Watcher{Config: f.cfg, Statuses: ch, Status: f.store, Reporter: report.Multi{f.rep, f.board.PodReporter(f.cfg.Self, "pod-a")},
		Clock: f.clock, Complete: true}
	res := w.Run(context.Background()) // returns by itself, or the test times out
	if !res.Released || res.State != record.StateSucceeded || res.ReleasedExitCode() != 0 {
		t.Errorf("Result %+v, want Succeeded and released", res)
	}
}

// slowPost is a Reporter that cannot deliver within a deadline (an API
// server unreachable, or refusing under load): a Flush with one fails at
// once; one without delivers once the test lets it (deliver closed).
type slowPost struct {
	supervise.Reporter
	once      sync.Once
	flushing  chan struct{} // closed at the first Flush without a deadline
	deliver   chan struct{}
	delivered atomic.Bool
}

func (s *slowPost) Flush(ctx context.Context) error {
	if s.delivered.Load() {
		return nil
	}
	if _, ok := ctx.Deadline(); ok {
		return context.DeadlineExceeded
	}
	s.once.Do(func() { close(s.flushing) })
	select {
	case <-s.deliver:
		s.delivered.Store(true)
		return s.Reporter.Flush(ctx)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestWatcherCompletesOnceDelivered: with Complete, the Watcher of a pod
// the job gave back returns (and the pod ends with it) only once the
// replica's last record is delivered, however long that takes: a pod that
// ended without it would be made again for a replica taken to have not
// finished, and train again.
func TestWatcherCompletesOnceDelivered(t *testing.T) {
	cfg := config(supervise.Never)
	cfg.Job.Layout = &cluster.Layout{Job: "j", Roles: []cluster.Role{{Type: "worker", Replicas: 1, Port: 2222}}}
	f := newFixture(t, cfg, true)
	stop := f.keep(t)
	defer stop()
	ch := make(chan supervise.ContainerStatus, 2)
	for _, s := range kubelet("pod-a", 0) {
		ch <- s
	}
	post := &slowPost{Reporter: report.Multi{f.rep, f.board.PodReporter(f.cfg.Self, "pod-a")}, flushing: make(chan struct{}), deliver: make(chan struct{})}
	w := &supervise.Watcher{Config: f.cfg, Statuses: ch, Status: f.store, Reporter: post, Clock: f.clock, Complete: true}
	done := make(chan supervise.Result, 1)
	go func() { done <- w.Run(context.Background()) }()
	select {
	case res := <-done:
		t.Fatalf("returned (%+v) with the last record undelivered", res)
	case <-post.flushing:
	case <-time.After(time.Minute):
		t.Fatal("no flush to wait for the last record")
	}
	close(post.deliver)
	res := <-done
	if !post.delivered.Load() || !res.Released || res.State != record.StateSucceeded {
		t.Errorf("Result %+v, delivered %v; want Succeeded, released, delivered", res, post.delivered.Load())
	}
}
