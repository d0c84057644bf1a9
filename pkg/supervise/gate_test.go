package supervise_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// pods is a ReplicaFeed of pods the test makes and takes away, each with
// its record and whether it is gated.
type pods struct {
	mu       sync.Mutex
	obs      map[string]supervise.Observed // by replica
	departed []supervise.Observed
	changed  chan struct{}
	uids     int
}

func newPods() *pods {
	return &pods{obs: map[string]supervise.Observed{}, changed: make(chan struct{}, 1)}
}

func (p *pods) Changed() <-chan struct{} { return p.changed }

func (p *pods) Replicas() []supervise.Observed {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []supervise.Observed
	for _, o := range p.obs {
		out = append(out, o)
	}
	return out
}

func (p *pods) Departed() []supervise.Observed {
	p.mu.Lock()
	defer p.mu.Unlock()
	d := p.departed
	p.departed = nil
	return d
}

// run makes a pod of replica ref (a new UID), gated or not, with no record.
func (p *pods) run(t *testing.T, ref string, gated bool) {
	r, err := supervise.ParseRef(ref)
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.uids++
	p.obs[ref] = supervise.Observed{Ref: r, Pod: "uid-" + string(rune('a'+p.uids)), Gated: gated}
	p.mu.Unlock()
	p.poke()
}

// say sets the record of replica ref's pod.
func (p *pods) say(ref string, st record.State) {
	p.mu.Lock()
	o := p.obs[ref]
	o.State = st
	p.obs[ref] = o
	p.mu.Unlock()
	p.poke()
}

// gone takes replica ref's pod away, its last record departing with it.
func (p *pods) gone(ref string, last record.State) {
	p.mu.Lock()
	o := p.obs[ref]
	o.State = last
	delete(p.obs, ref)
	p.departed = append(p.departed, o)
	p.mu.Unlock()
	p.poke()
}

func (p *pods) poke() {
	select {
	case p.changed <- struct{}{}:
	default:
	}
}

// TestKeeperGatesFinishedBelowRunning: under AllWorkers, worker-1 of
// three finishes while the others train: its StatefulSet cannot shrink
// below worker-2, so the keeper gates the workers' template, then records
// them gated, which gives worker-1's pod back. The pod made again for it,
// gated, stays so; so does worker-0's, whose success reached the keeper
// only with its pod's departure. worker-2's running pod, evicted, is made
// again gated, and the keeper lifts its gate.
func TestKeeperGatesFinishedBelowRunning(t *testing.T) {
	j := newJob(t, "worker:3:1", func(c *supervise.Job) { c.SuccessPolicy = supervise.AllWorkers })
	ps := newPods()
	for _, r := range []string{"worker-0", "worker-1", "worker-2"} {
		ps.run(t, r, false)
		ps.say(r, record.StateRunning)
	}
	k := j.keeper(-1)
	k.Replicas = ps
	runKeeper(t, k)

	ps.say("worker-1", record.StateSucceeded)
	j.sc.await(t, "gate worker")
	s := j.wait("the workers gated", func(s *record.Status) bool { return slices.Equal(s.Gated, []string{"worker"}) })
	cfg := func(i int32) *supervise.Config {
		return &supervise.Config{Job: j.pol, Self: supervise.Ref{Type: "worker", Index: i}}
	}
	if !cfg(1).GivenBack(s, nil) || cfg(0).GivenBack(s, nil) || cfg(2).GivenBack(s, nil) {
		t.Errorf("given back: worker-0 %v, worker-1 %v, worker-2 %v; want worker-1 alone", cfg(0).GivenBack(s, nil), cfg(1).GivenBack(s, nil), cfg(2).GivenBack(s, nil))
	}
	if !cfg(0).GivenBack(s, &record.Replica{State: record.StateSucceeded}) {
		t.Error("worker-0, by its own record succeeded, is not given back in a gated type")
	}

	ps.gone("worker-1", record.StateSucceeded)
	ps.run(t, "worker-1", true)
	ps.gone("worker-0", record.StateSucceeded) // its success, seen only as it went
	ps.run(t, "worker-0", true)
	s = j.wait("worker-0 counted", func(s *record.Status) bool { return s.HasSucceeded("worker", 0) })
	if s.Ended() {
		t.Fatalf("the job ended with worker-2 running: %+v", s.Conditions)
	}
	ps.gone("worker-2", record.StateStopped) // evicted
	ps.run(t, "worker-2", true)
	j.sc.await(t, "gate worker", "lift j-worker-2")
	if diff := cmp.Diff([]string{"gate worker", "lift j-worker-2"}, j.sc.scaledTo()); diff != "" {
		t.Errorf("calls (-want +got): a finished replica's gate lifted?\n%s", diff)
	}
}

// TestKeeperGatesOnceEveryPodIsMade: worker-0 of three finishes while its
// StatefulSet has not made worker-2's pod yet: the keeper does not gate
// the workers' template (a template taken mid-sync would make the pods
// still to come gated, and each finished replica given back would cost
// the StatefulSet controller what it needs to make them). Once worker-2's
// pod is there, it does.
func TestKeeperGatesOnceEveryPodIsMade(t *testing.T) {
	j := newJob(t, "worker:3:1", func(c *supervise.Job) { c.SuccessPolicy = supervise.AllWorkers })
	ps := newPods()
	for _, r := range []string{"worker-0", "worker-1"} {
		ps.run(t, r, false)
		ps.say(r, record.StateRunning)
	}
	k := j.keeper(-1)
	k.Replicas = ps
	runKeeper(t, k)

	ps.say("worker-0", record.StateSucceeded)
	j.wait("worker-0 counted", func(s *record.Status) bool { return s.HasSucceeded("worker", 0) })
	// A call the keeper makes after it has seen worker-0 finished: worker-1's
	// pod made again gated (as by an eviction) is lifted.
	ps.gone("worker-1", record.StateStopped)
	ps.run(t, "worker-1", true)
	j.sc.await(t, "lift j-worker-1")
	if diff := cmp.Diff([]string{"lift j-worker-1"}, j.sc.scaledTo()); diff != "" {
		t.Fatalf("calls (-want +got): gated while worker-2's pod was still to be made?\n%s", diff)
	}
	ps.run(t, "worker-2", false)
	j.sc.await(t, "lift j-worker-1", "gate worker")
	j.wait("the workers gated", func(s *record.Status) bool { return slices.Equal(s.Gated, []string{"worker"}) })
}

// TestGatesAndLifts: which types a status wants gated, and which gated
// pods it wants lifted.
func TestGatesAndLifts(t *testing.T) {
	succeeded := func(s *record.Status, refs ...string) *record.Status {
		for _, r := range refs {
			ref, _ := supervise.ParseRef(r)
			s.AddSucceeded(ref.Type, ref.Index)
		}
		return s
	}
	ended := func(s *record.Status) *record.Status {
		s.Finish(true, "JobSucceeded", "", newClock(false).Now())
		return s
	}
	for _, tc := range []struct {
		name   string
		edit   func(*supervise.Job)
		status *record.Status
		gates  []string
	}{
		{"nothing finished", nil, &record.Status{}, nil},
		{"the top finished: shrunk, not gated", nil, succeeded(&record.Status{}, "worker-2"), nil},
		{"a worker below a running one", nil, succeeded(&record.Status{}, "worker-1"), []string{"worker"}},
		{"under None every pod stays", func(j *supervise.Job) { j.CleanPodPolicy = supervise.CleanNone }, succeeded(&record.Status{}, "worker-0"), nil},
		{"a job that holds finished replicas (Kueue)", func(j *supervise.Job) { j.HoldFinished = true }, succeeded(&record.Status{}, "worker-0"), nil},
		{"an ended job releases", nil, ended(succeeded(&record.Status{}, "worker-0")), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := newJob(t, "ps:1:1,worker:3:1", func(c *supervise.Job) {
				c.SuccessPolicy = supervise.AllWorkers
				if tc.edit != nil {
					tc.edit(c)
				}
			})
			if diff := cmp.Diff(tc.gates, j.pol.Gates(tc.status)); diff != "" {
				t.Errorf("Gates (-want +got):\n%s", diff)
			}
		})
	}
	j := newJob(t, "ps:1:1,worker:3:1", nil)
	s := succeeded(&record.Status{}, "worker-1")
	obs := []supervise.Observed{
		{Ref: supervise.Ref{Type: "worker"}, Gated: true},
		{Ref: supervise.Ref{Type: "worker", Index: 1}, Gated: true},
		{Ref: supervise.Ref{Type: "worker", Index: 2}},
		{Ref: supervise.Ref{Type: "ps"}, Gated: true},
	}
	want := []supervise.Ref{{Type: "worker"}, {Type: "ps"}}
	if diff := cmp.Diff(want, j.pol.Lifts(s, obs)); diff != "" {
		t.Errorf("Lifts (-want +got):\n%s", diff)
	}
	if got := j.pol.Lifts(ended(s), obs); len(got) != 0 {
		t.Errorf("Lifts of an ended job: %v", got)
	}
}

// TestKeeperKeepsGateOfUnwrittenFinish: worker-0 succeeds in a gated type
// and its pod goes at once (given back), its success coming with the
// pod's departure while the status's next write waits for the write
// interval (5 s at 1,000 replicas). The pod made again for it, gated,
// keeps its gate: it never trains again. worker-2's, evicted while
// running, has its gate lifted meanwhile.
func TestKeeperKeepsGateOfUnwrittenFinish(t *testing.T) {
	j := newJob(t, "worker:3:1", func(c *supervise.Job) { c.SuccessPolicy = supervise.AllWorkers })
	ps := newPods()
	for _, r := range []string{"worker-0", "worker-1", "worker-2"} {
		ps.run(t, r, false)
		ps.say(r, record.StateRunning)
	}
	const interval = time.Minute
	clk := newClock(false)
	k := j.keeper(interval)
	k.Replicas, k.Clock = ps, clk
	runKeeper(t, k)
	j.wait("the job running", func(s *record.Status) bool { return s.IsTrue(record.JobRunning) })

	ps.say("worker-1", record.StateSucceeded)
	clk.Advance(interval) // worker-1's success written: the workers gated
	j.sc.await(t, "gate worker")
	j.wait("the workers gated", func(s *record.Status) bool { return slices.Equal(s.Gated, []string{"worker"}) })

	ps.gone("worker-0", record.StateSucceeded)
	ps.run(t, "worker-0", true)
	ps.gone("worker-2", record.StateStopped)
	ps.run(t, "worker-2", true)
	j.sc.await(t, "gate worker", "lift j-worker-2")
	if s, _ := j.store.Get(context.Background()); s.HasSucceeded("worker", 0) {
		t.Fatal("worker-0's success was written before the write interval: the test shows nothing")
	}
	clk.Advance(interval)
	j.wait("worker-0 counted", func(s *record.Status) bool { return s.HasSucceeded("worker", 0) })
	if diff := cmp.Diff([]string{"gate worker", "lift j-worker-2"}, j.sc.scaledTo()); diff != "" {
		t.Errorf("calls (-want +got): the gate of finished worker-0 lifted?\n%s", diff)
	}
}
