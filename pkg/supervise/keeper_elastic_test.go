package supervise_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// neighbours is a Neighbourhood of fixed pods, read once.
type neighbours struct {
	pods     []supervise.ElasticPod
	activity time.Time
	changed  chan struct{}
}

func newNeighbours(activity time.Time, pods ...supervise.ElasticPod) *neighbours {
	n := &neighbours{pods: pods, activity: activity, changed: make(chan struct{}, 1)}
	n.changed <- struct{}{}
	return n
}

func (n *neighbours) Changed() <-chan struct{}     { return n.changed }
func (n *neighbours) Pods() []supervise.ElasticPod { return n.pods }
func (n *neighbours) Activity() time.Time          { return n.activity }

// TestKeeperResizesAtOnce: an elastic job's growth waits for the
// namespace to be quiet, woken by the keeper's one timer, and is written
// at once though the write interval is an hour: the layout with the rest
// of the status, one event, one log line; the enforcer then sets the
// StatefulSet.
func TestKeeperResizesAtOnce(t *testing.T) {
	j := newJob(t, "worker:2:1", func(c *supervise.Job) { c.Elastic = &supervise.Elastic{Min: 1, Max: 3} })
	j.set("worker-0", record.StateRunning, 0)
	j.set("worker-1", record.StateRunning, 0)
	clock := newClock(false)
	placed := func(i int32) supervise.ElasticPod {
		return supervise.ElasticPod{Job: "j", Ref: supervise.Ref{Type: "worker", Index: i}, Min: 1, Scheduled: true, Since: clock.Now()}
	}
	lines := make(chan string, 64)
	k := j.keeper(time.Hour)
	k.Clock, k.Neighbours = clock, newNeighbours(clock.Now().Add(-20*time.Second), placed(0), placed(1))
	k.Logf = func(format string, args ...any) {
		t.Logf(format, args...)
		lines <- fmt.Sprintf(format, args...)
	}
	j.stop = runKeeper(t, k)
	j.wait("the job to start", func(s *record.Status) bool { return s.StartTime != nil })
	// The namespace has been quiet for 20 s: the decision asks to be
	// woken in 40 s.
	for waiting := true; waiting; {
		select {
		case d := <-clock.created:
			waiting = d != 40*time.Second
		case <-time.After(time.Minute):
			t.Fatal("the keeper did not wait for the namespace to be quiet")
		}
	}
	if s, _ := j.store.Get(t.Context()); len(s.Layout) != 0 || j.store.count() != 1 {
		t.Fatalf("layout %v after %d writes before the namespace was quiet: want none, 1 write", s.Layout, j.store.count())
	}
	clock.Advance(40 * time.Second)
	s := j.wait("the resize", func(s *record.Status) bool { return s.Layout["worker"] == 3 })
	if s.LayoutGeneration != 1 || s.ResizedAt == nil || !s.ResizedAt.Time.Equal(clock.Now()) || j.store.count() != 2 {
		t.Errorf("generation %d, resized at %v, %d writes: want 1, %v, 2", s.LayoutGeneration, s.ResizedAt, j.store.count(), clock.Now())
	}
	j.sc.await(t, "worker to 3")
	j.stop()
	if got := j.events.events(); !slices.Equal(got, []string{supervise.ReasonElasticResize}) {
		t.Errorf("events %q, want one %s", got, supervise.ReasonElasticResize)
	}
	const note = "workers 2 -> 3: no elastic pod of the namespace came or went for 1m0s"
	var logged []string
	for len(lines) > 0 {
		if l := <-lines; strings.HasPrefix(l, "elastic: ") {
			logged = append(logged, l)
		}
	}
	if diff := cmp.Diff([]string{"elastic: " + note}, logged); diff != "" {
		t.Errorf("log lines (-want +got):\n%s", diff)
	}
}
