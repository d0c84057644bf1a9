package supervise_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// steps is a LogStore and Scaler that says each call, in order, on one
// channel.
type steps chan string

func (s steps) Save(_ context.Context, tails map[string]string) error {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(tails)) {
		kv = append(kv, k+"="+tails[k])
	}
	s <- "save " + strings.Join(kv, ",")
	return nil
}

func (s steps) Scale(_ context.Context, t string, n int32) error {
	s <- fmt.Sprintf("scale %s to %d", t, n)
	return nil
}

// Replicas implements supervise.Scaler: no StatefulSet is read.
func (s steps) Replicas(context.Context, string) (int32, bool, error) { return 0, false, nil }

func (s steps) Gate(_ context.Context, t string) error {
	s <- "gate " + t
	return nil
}

func (s steps) Lift(_ context.Context, l supervise.Lift) error {
	s <- "lift " + l.Pod
	return nil
}

// next waits for the next step and fails unless it is want.
func (s steps) next(t *testing.T, want string) {
	t.Helper()
	select {
	case got := <-s:
		if got != want {
			t.Fatalf("next step %q, want %q", got, want)
		}
	case <-time.After(time.Minute):
		t.Fatalf("waiting for step %q: gave up", want)
	}
}

// until waits for step want, and returns the steps before it.
func (s steps) until(t *testing.T, want string) []string {
	t.Helper()
	var before []string
	deadline := time.After(time.Minute)
	for {
		select {
		case got := <-s:
			if got == want {
				return before
			}
			before = append(before, got)
		case <-deadline:
			t.Fatalf("waiting for step %q: gave up after %q", want, before)
		}
	}
}

// tail reports replica ref's record with the end of its output.
func (j *job) tail(ref string, st record.State, tail string) {
	r, err := supervise.ParseRef(ref)
	if err != nil {
		j.t.Fatal(err)
	}
	code := int32(1)
	j.board.Reporter(r).Report(supervise.Report{Replica: record.Replica{State: st, LastExitCode: &code, LogTail: tail}})
}

// TestKeeperKeepsLogsBeforeTeardown: under cleanPodPolicy All, the job
// fails at worker-2's failure and every type is released at once; the
// keeper's own StatefulSet waits until every replica told to stop has
// said how it ended, and their tails are saved before it goes.
func TestKeeperKeepsLogsBeforeTeardown(t *testing.T) {
	j := newJob(t, "ps:1:1,worker:3:1", func(c *supervise.Job) { c.CleanPodPolicy = supervise.CleanAll })
	for _, r := range []string{"ps-0", "worker-0", "worker-1", "worker-2"} {
		j.set(r, record.StateRunning, 0)
	}
	s := make(steps, 16)
	k := j.keeper(-1)
	k.Scaler, k.Logs = s, s
	runKeeper(t, k)

	j.tail("worker-2", record.StateFailed, "Traceback\nboom\n")
	s.until(t, "scale worker to 0")
	j.tail("ps-0", record.StateStopped, "ps last words\n")
	j.tail("worker-1", record.StateStopped, "w1\n")
	before := s.until(t, "save ps-0=ps last words\n,worker-1=w1\n,worker-2=Traceback\nboom\n")
	if slices.Contains(before, "scale keeper to 0") {
		t.Fatalf("steps %q: the keeper's own StatefulSet went before worker-0 said how it ended", before)
	}
	j.tail("worker-0", record.StateStopped, "w0\n")
	before = s.until(t, "scale keeper to 0")
	if !slices.Contains(before, "save ps-0=ps last words\n,worker-0=w0\n,worker-1=w1\n,worker-2=Traceback\nboom\n") {
		t.Errorf("steps before the keeper's own release %q: want every tail saved", before)
	}
}

// TestKeeperKeepsFailuresFirst: past MaxLogTails replicas, the tails of
// failed replicas are kept before those of stopped ones.
func TestKeeperKeepsFailuresFirst(t *testing.T) {
	const n = record.MaxLogTails + 10
	j := newJob(t, fmt.Sprintf("chief:1:1,worker:%d:1", n), nil)
	j.set("chief-0", record.StateRunning, 0)
	for i := range n {
		j.tail(fmt.Sprintf("worker-%d", i), record.StateStopped, "stopped\n")
	}
	j.tail(fmt.Sprintf("worker-%d", n-1), record.StateFailed, "failed\n")
	saved := make(chan map[string]string, 64)
	k := j.keeper(-1)
	k.Logs = savesTo(saved)
	runKeeper(t, k)
	select {
	case got := <-saved:
		if len(got) != record.MaxLogTails || got[fmt.Sprintf("worker-%d", n-1)] != "failed\n" {
			t.Errorf("saved %d tails, worker-%d's %q; want %d, with the failure", len(got), n-1, got[fmt.Sprintf("worker-%d", n-1)], record.MaxLogTails)
		}
	case <-time.After(time.Minute):
		t.Fatal("waiting for a save: gave up")
	}
}

type savesTo chan map[string]string

func (s savesTo) Save(_ context.Context, tails map[string]string) error {
	s <- maps.Clone(tails)
	return nil
}

// stuckStore is a LogStore whose saves hang until released.
type stuckStore struct {
	started chan struct{}
	release chan struct{}
}

func (s *stuckStore) Save(ctx context.Context, _ map[string]string) error {
	select {
	case s.started <- struct{}{}:
	default:
	}
	select {
	case <-s.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestKeeperNotHeldBySavingLogs: a save that hangs (an API server that
// does not answer) does not hold up the job's status: the chief's success
// still ends the job.
func TestKeeperNotHeldBySavingLogs(t *testing.T) {
	j := newJob(t, "chief:1:1,worker:2:1", func(c *supervise.Job) { c.CleanPodPolicy = supervise.CleanNone })
	j.set("chief-0", record.StateRunning, 0)
	j.set("worker-0", record.StateRunning, 0)
	store := &stuckStore{started: make(chan struct{}, 1), release: make(chan struct{})}
	k := j.keeper(-1)
	k.Logs = store
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); k.Run(ctx) }()
	defer func() { close(store.release); cancel(); <-done }()
	j.tail("worker-1", record.StateRestarting, "about to fail\n")
	select {
	case <-store.started:
	case <-time.After(time.Minute):
		t.Fatal("waiting for a save: gave up")
	}
	j.set("chief-0", record.StateSucceeded, 0, 0)
	// A hung save gives up after a minute: the job must end well before.
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	defer wcancel()
	for s := range j.store.Watch(wctx) {
		if s.Ended() {
			return
		}
	}
	t.Fatal("the job did not end while a save of the logs hung")
}

// feed is a ReplicaFeed of fixed replicas.
type feed []supervise.Observed

func (f feed) Changed() <-chan struct{} {
	c := make(chan struct{}, 1)
	c <- struct{}{}
	return c
}
func (f feed) Replicas() []supervise.Observed { return f }
func (feed) Departed() []supervise.Observed   { return nil }

// TestKeeperOwnTeardownSkipsUntrained: a replica whose supervisor never
// reported (its pod still pending) is given recordGrace to report, in
// case it started as the job ended; then it is taken to have nothing to
// say, and the keeper's own StatefulSet goes.
func TestKeeperOwnTeardownSkipsUntrained(t *testing.T) {
	j := newJob(t, "ps:1:1,worker:2:1", func(c *supervise.Job) { c.CleanPodPolicy = supervise.CleanAll })
	code := int32(1)
	obs := feed{
		{Ref: supervise.Ref{Type: "ps"}, Pod: "p0"}, // pending: no record
		{Ref: supervise.Ref{Type: "worker"}, Pod: "w0", Replica: record.Replica{State: record.StateStopped}},
		{Ref: supervise.Ref{Type: "worker", Index: 1}, Pod: "w1", Replica: record.Replica{State: record.StateFailed, LastExitCode: &code, LogTail: "boom\n"}},
	}
	s := make(steps, 16)
	clock := newClock(false)
	k := j.keeper(-1)
	k.Replicas, k.Scaler, k.Logs, k.Clock = obs, s, s, clock
	runKeeper(t, k)
	before := s.until(t, "scale ps to 0")
	if !slices.Contains(before, "save worker-1=boom\n") {
		t.Errorf("steps before the PS's release %q: want worker-1's tail saved", before)
	}
	s.until(t, "scale worker to 0")
	// The keeper waits for the PS's record until recordGrace has passed.
	for waiting := true; waiting; {
		select {
		case d := <-clock.created:
			waiting = d != 5*time.Second
		case step := <-s:
			t.Fatalf("step %q before the keeper waited for the PS's record", step)
		case <-time.After(time.Minute):
			t.Fatal("the keeper did not wait for the PS's record")
		}
	}
	select {
	case step := <-s:
		t.Fatalf("step %q while the PS may still report", step)
	default:
	}
	clock.Advance(5 * time.Second)
	s.until(t, "scale keeper to 0")
}
