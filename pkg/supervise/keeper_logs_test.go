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

// steps is a LogStore, Teardown and Shrinker that says each call, in
// order, on one channel.
type steps chan string

func (s steps) Save(_ context.Context, tails map[string]string) error {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(tails)) {
		kv = append(kv, k+"="+tails[k])
	}
	s <- "save " + strings.Join(kv, ",")
	return nil
}

func (s steps) Stop(_ context.Context, types []string) error {
	s <- "stop " + strings.Join(types, ",")
	return nil
}

func (s steps) Shrink(_ context.Context, t string, keep int32) error {
	s <- fmt.Sprintf("shrink %s to %d", t, keep)
	return nil
}

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

// tail reports replica ref's record with the end of its output.
func (j *job) tail(ref string, st record.State, tail string) {
	r, err := supervise.ParseRef(ref)
	if err != nil {
		j.t.Fatal(err)
	}
	code := int32(1)
	j.board.Reporter(r).Report(supervise.Report{Replica: record.Replica{State: st, LastExitCode: &code, LogTail: tail}})
}

// TestKeeperKeepsLogsBeforeTeardown: under cleanPodPolicy All, the tail of
// the failure that ends the job is saved before anything is torn down; the
// keeper's own type (worker) waits, after its other replicas are stopped,
// until every replica going down has reported how it ended, whose tails
// are saved before the keeper's own replica goes.
func TestKeeperKeepsLogsBeforeTeardown(t *testing.T) {
	j := newJob(t, "ps:1:1,worker:3:1", func(c *supervise.Config) { c.CleanPodPolicy = supervise.CleanAll })
	for _, r := range []string{"ps-0", "worker-0", "worker-1", "worker-2"} {
		j.set(r, record.StateRunning, 0)
	}
	s := make(steps, 16)
	k := &supervise.Keeper{Config: j.cfg, Replicas: j.board, Store: j.store, Reporter: j.events, Teardown: s, Logs: s, WriteInterval: -1}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); k.Run(ctx) }()
	defer func() { cancel(); <-done }()

	j.tail("worker-2", record.StateFailed, "Traceback\nboom\n")
	s.next(t, "save worker-2=Traceback\nboom\n")
	s.next(t, "stop ps")
	s.next(t, "shrink worker to 1")
	j.tail("ps-0", record.StateStopped, "ps last words\n")
	s.next(t, "save ps-0=ps last words\n,worker-2=Traceback\nboom\n")
	select {
	case got := <-s:
		t.Fatalf("%q before worker-1 said how it ended", got)
	default:
	}
	j.tail("worker-1", record.StateStopped, "w1\n")
	s.next(t, "save ps-0=ps last words\n,worker-1=w1\n,worker-2=Traceback\nboom\n")
	s.next(t, "stop worker")
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
	k := &supervise.Keeper{Config: j.cfg, Replicas: j.board, Store: j.store, Reporter: j.events, Logs: savesTo(saved), WriteInterval: -1}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); k.Run(ctx) }()
	defer func() { cancel(); <-done }()
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
	j := newJob(t, "chief:1:1,worker:2:1", func(c *supervise.Config) { c.CleanPodPolicy = supervise.CleanNone })
	j.set("chief-0", record.StateRunning, 0)
	j.set("worker-0", record.StateRunning, 0)
	store := &stuckStore{started: make(chan struct{}, 1), release: make(chan struct{})}
	k := &supervise.Keeper{Config: j.cfg, Replicas: j.board, Store: j.store, Reporter: j.events, Logs: store, WriteInterval: -1}
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

// TestKeeperOwnTeardownSkipsUntrained: a replica whose supervisor never
// reported (its pod still pending) has no output to wait for: the
// keeper's own type goes at once.
func TestKeeperOwnTeardownSkipsUntrained(t *testing.T) {
	j := newJob(t, "ps:1:1,worker:2:1", func(c *supervise.Config) { c.CleanPodPolicy = supervise.CleanAll })
	code := int32(1)
	obs := feed{
		{Ref: supervise.Ref{Type: "ps"}, Pod: "p0"}, // pending: no record
		{Ref: supervise.Ref{Type: "worker"}, Pod: "w0", Replica: record.Replica{State: record.StateRunning}},
		{Ref: supervise.Ref{Type: "worker", Index: 1}, Pod: "w1", Replica: record.Replica{State: record.StateFailed, LastExitCode: &code, LogTail: "boom\n"}},
	}
	s := make(steps, 16)
	// Time stands still: only the replicas can end the keeper's wait.
	k := &supervise.Keeper{Config: j.cfg, Replicas: obs, Store: j.store, Reporter: j.events, Teardown: s, Logs: s, WriteInterval: -1,
		Clock: newClock(false)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); k.Run(ctx) }()
	defer func() { cancel(); <-done }()
	s.next(t, "save worker-1=boom\n")
	s.next(t, "stop ps")
	s.next(t, "shrink worker to 1")
	s.next(t, "stop worker")
}
