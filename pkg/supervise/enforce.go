package supervise

import (
	"context"
	"fmt"
	"time"

	"github.com/tfgen/tfgen/pkg/kube"
)

// Target is the replicas a replica type's StatefulSet must have.
type Target struct {
	// Type is the lowercase replica type.
	Type string
	// Replicas it must have.
	Replicas int32
}

func (t Target) String() string { return fmt.Sprintf("%s to %d", t.Type, t.Replicas) }

// Scaler sets the replicas of the job's StatefulSets and the gate of
// their pods (gate.go).
type Scaler interface {
	// Scale sets type t's StatefulSet to n replicas; one that does not
	// exist counts as set.
	Scale(ctx context.Context, t string, n int32) error
	// Replicas returns the replicas type t's StatefulSet is set to; ok is
	// false when it does not exist.
	Replicas(ctx context.Context, t string) (n int32, ok bool, err error)
	// Gate adds FinishedGate to type t's pod template, and returns once
	// the StatefulSet's controller has seen it.
	Gate(ctx context.Context, t string) error
	// Lift removes FinishedGate from the pod of l, if it is still that pod.
	Lift(ctx context.Context, l Lift) error
}

// Lift names a pod whose gate the keeper lifts.
type Lift struct {
	// Pod is the pod's name, UID its UID.
	Pod, UID string
}

// scaleTimeout bounds one call of the Scaler.
const scaleTimeout = 10 * time.Second

// enforceRetry paces the attempts to set a target the API server did not
// take: every error is tried again (a refusal may be lifted: a Role
// fixed, a quota raised), at most every 5 s.
var enforceRetry = kube.DefaultRetry

// enforcer makes the job's StatefulSets match the targets the job's
// status gives (Job.Targets), the keeper's one actor: it runs at the
// keeper's start, whenever the targets change, again after a failure
// until they are met, and when the keeper's pods suggest a StatefulSet
// drifted from its target (check). Each target is set once it is known;
// a new keeper sets them all once more, which is how it finishes what an
// old one began. The keeper's own type comes last: setting it may stop the
// keeper itself.
type enforcer struct {
	scaler Scaler
	own    string // the keeper's own type
	clock  Clock
	logf   func(string, ...any)
	// warn reports a target the API server did not take, once per run of
	// failures.
	warn func(note string)
	// gated tells the keeper a type it asked to gate is gated.
	gated func(t string)
	in    chan wanted // the latest targets, if not yet taken
}

// wanted is what the keeper hands the enforcer: the targets, the types to
// gate and the pods to lift, and whether to check the targets against the
// StatefulSets (the pods say one may differ).
type wanted struct {
	targets []Target
	gates   []string
	lifts   []Lift
	check   bool
}

func newEnforcer(s Scaler, own string, clock Clock, logf func(string, ...any), warn func(string), gated func(string)) *enforcer {
	return &enforcer{scaler: s, own: own, clock: clock, logf: logf, warn: warn, gated: gated, in: make(chan wanted, 1)}
}

// want hands the enforcer the latest of what the keeper wants, checking
// the targets against the StatefulSets first if w.check; what was not yet
// taken is replaced (a check asked for stays asked for). Only one
// goroutine calls it.
func (e *enforcer) want(w wanted) {
	select {
	case old := <-e.in:
		w.check = w.check || old.check
	default:
	}
	e.in <- w
}

// run sets the targets, gates and lifts until ctx ends; then it goes on
// until they are met, flushTimeout at most (the keeper hands over its last
// targets before it ends ctx).
func (e *enforcer) run(ctx context.Context) {
	p := &progress{set: map[string]int32{}, done: map[string]bool{}, failed: map[string]int{}}
	var w wanted
	var again, drain <-chan time.Time
	stopping := ctx.Done()
	for {
		select {
		case w = <-e.in:
			if w.check {
				e.check(w.targets, p.set)
			}
		case <-again:
			again = nil
		case <-stopping:
			stopping, drain = nil, e.clock.After(flushTimeout)
			select {
			case w = <-e.in:
			default:
			}
		case <-drain:
			return
		}
		wait, met := e.pass(w, p)
		if met && stopping == nil {
			return
		}
		if wait >= 0 {
			again = e.clock.After(wait)
		}
	}
}

// progress is what the enforcer has done: the targets met (set, by
// type), the gates and lifts done (by "gate "+type and "lift "+pod UID),
// and the failures in a row of each.
type progress struct {
	set    map[string]int32
	done   map[string]bool
	failed map[string]int
}

// pass tries each target not met yet (the keeper's own type after every
// other), each gate and each lift not done, and returns the wait before
// the next try (-1: none) and whether everything is done.
func (e *enforcer) pass(w wanted, p *progress) (wait time.Duration, met bool) {
	wait = -1
	unmet := false
	try := func(key, what string, call func() error) bool {
		err := call()
		if err == nil {
			if n := p.failed[key]; n > 0 {
				e.logf("%s, after %d failed attempts", what, n)
			} else {
				e.logf("%s", what)
			}
			p.failed[key] = 0
			return true
		}
		unmet = true
		p.failed[key]++
		n := p.failed[key]
		d := enforceRetry.Delay(n, err)
		if n == 1 || n%10 == 0 {
			e.logf("%s (attempt %d): %v; again in %v", what, n, err, d.Round(time.Millisecond))
		}
		if n == 1 {
			e.warn(fmt.Sprintf("%s: %v", what, err))
		}
		if wait < 0 || d < wait {
			wait = d
		}
		return false
	}
	for _, t := range w.targets {
		if n, ok := p.set[t.Type]; ok && n == t.Replicas {
			continue
		}
		if t.Type == e.own && unmet {
			break // after every other
		}
		if try("scale "+t.Type, "scale "+t.String(), func() error { return e.scale(t) }) {
			p.set[t.Type] = t.Replicas
		}
	}
	for _, t := range w.gates {
		key := "gate " + t
		if p.done[key] {
			continue
		}
		if try(key, "gate "+t+"'s pods ("+FinishedGate+")", func() error { return e.call(func(ctx context.Context) error { return e.scaler.Gate(ctx, t) }) }) {
			p.done[key] = true
			e.gated(t)
		}
	}
	for _, l := range w.lifts {
		key := "lift " + l.UID
		if p.done[key] {
			continue
		}
		if try(key, "lift the gate of pod "+l.Pod, func() error { return e.call(func(ctx context.Context) error { return e.scaler.Lift(ctx, l) }) }) {
			p.done[key] = true
		}
	}
	return wait, !unmet
}

// check forgets each target met whose StatefulSet is now set otherwise
// (scaled by hand, or by a write racing the keeper's), so that the pass
// sets it again.
func (e *enforcer) check(targets []Target, set map[string]int32) {
	for _, t := range targets {
		n, met := set[t.Type]
		if !met || n != t.Replicas {
			continue
		}
		cctx, cancel := context.WithTimeout(context.Background(), scaleTimeout)
		have, ok, err := e.scaler.Replicas(cctx, t.Type)
		cancel()
		if err == nil && ok && have != t.Replicas {
			e.logf("%s's StatefulSet is at %d: setting it again", t, have)
			delete(set, t.Type)
		}
	}
}

func (e *enforcer) scale(t Target) error {
	return e.call(func(ctx context.Context) error { return e.scaler.Scale(ctx, t.Type, t.Replicas) })
}

// call makes one call of the Scaler, scaleTimeout at most.
func (e *enforcer) call(f func(context.Context) error) error {
	cctx, cancel := context.WithTimeout(context.Background(), scaleTimeout)
	defer cancel()
	return f(cctx)
}
