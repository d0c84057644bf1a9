package supervise_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tfgen/tfgen/pkg/record"
)

// failsOnce is a store whose first write fails.
type failsOnce struct {
	*countingStore
	failed atomic.Bool
}

func (f *failsOnce) Update(ctx context.Context, mutate func(*record.Status) error) (*record.Status, error) {
	if !f.failed.Swap(true) {
		return nil, errors.New("the API server is busy")
	}
	return f.countingStore.Update(ctx, mutate)
}

// awaitTimer waits until the keeper arms its timer for d.
func awaitTimer(t *testing.T, c *clock, d time.Duration) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case got := <-c.created:
			if got == d {
				return
			}
		case <-deadline:
			t.Fatalf("waiting for a timer of %v: gave up", d)
		}
	}
}

// TestKeeperOneTimer: a write that failed is tried again, and a write put
// off is made, when the keeper's timer fires, and not before.
func TestKeeperOneTimer(t *testing.T) {
	j := newJob(t, "worker:2:1", nil)
	j.set("worker-0", record.StateRunning, 0)
	clock := newClock(false)
	k := j.keeper(time.Second)
	k.Store, k.Clock = &failsOnce{countingStore: j.store}, clock
	j.stop = runKeeper(t, k)
	// The start failed to be written: tried again a write interval later.
	awaitTimer(t, clock, time.Second)
	if n := j.store.count(); n != 0 {
		t.Fatalf("%d writes before the timer fired, want none", n)
	}
	clock.Advance(time.Second)
	j.wait("the start", func(s *record.Status) bool { return s.StartTime != nil })
	// Another replica starting decides nothing: put off a write interval.
	j.set("worker-1", record.StateRunning, 0)
	awaitTimer(t, clock, time.Second)
	if s, _ := j.store.Get(t.Context()); s.ReplicaStatuses["Worker"].Active != 1 || j.store.count() != 1 {
		t.Fatalf("workers %+v after %d writes: want 1 active, 1 write, until the timer fires", s.ReplicaStatuses["Worker"], j.store.count())
	}
	clock.Advance(time.Second)
	j.wait("both workers counted", func(s *record.Status) bool { return s.ReplicaStatuses["Worker"].Active == 2 })
	if n := j.store.count(); n != 2 {
		t.Errorf("%d writes, want 2", n)
	}
}
