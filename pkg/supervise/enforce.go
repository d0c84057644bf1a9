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

// Scaler sets the replicas of the job's StatefulSets.
type Scaler interface {
	// Scale sets type t's StatefulSet to n replicas; one that does not
	// exist counts as set.
	Scale(ctx context.Context, t string, n int32) error
	// Replicas returns the replicas type t's StatefulSet is set to; ok is
	// false when it does not exist.
	Replicas(ctx context.Context, t string) (n int32, ok bool, err error)
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
	in   chan wanted // the latest targets, if not yet taken
}

// wanted is what the keeper hands the enforcer: the targets, and whether
// to check them against the StatefulSets (the pods say one may differ).
type wanted struct {
	targets []Target
	check   bool
}

func newEnforcer(s Scaler, own string, clock Clock, logf func(string, ...any), warn func(string)) *enforcer {
	return &enforcer{scaler: s, own: own, clock: clock, logf: logf, warn: warn, in: make(chan wanted, 1)}
}

// want hands the enforcer the latest targets, to check against the
// StatefulSets first if check; targets not yet taken are replaced (a
// check asked for stays asked for). Only one goroutine calls it.
func (e *enforcer) want(ts []Target, check bool) {
	select {
	case w := <-e.in:
		check = check || w.check
	default:
	}
	e.in <- wanted{targets: ts, check: check}
}

// run sets the targets until ctx ends; then it goes on until they are
// met, flushTimeout at most (the keeper hands over its last targets
// before it ends ctx).
func (e *enforcer) run(ctx context.Context) {
	set := map[string]int32{}  // the targets met, by type
	failed := map[string]int{} // consecutive failures, by type
	var targets []Target
	var again, drain <-chan time.Time
	stopping := ctx.Done()
	for {
		select {
		case w := <-e.in:
			targets = w.targets
			if w.check {
				e.check(targets, set)
			}
		case <-again:
			again = nil
		case <-stopping:
			stopping, drain = nil, e.clock.After(flushTimeout)
			select {
			case w := <-e.in:
				targets = w.targets
			default:
			}
		case <-drain:
			return
		}
		wait, met := e.pass(targets, set, failed)
		if met && stopping == nil {
			return
		}
		if wait >= 0 {
			again = e.clock.After(wait)
		}
	}
}

// pass tries each target not met yet, the keeper's own type after every
// other, and returns the wait before the next try (-1: none) and whether
// every target is met.
func (e *enforcer) pass(targets []Target, set map[string]int32, failed map[string]int) (wait time.Duration, met bool) {
	wait = -1
	unmet := false
	for _, t := range targets {
		if n, ok := set[t.Type]; ok && n == t.Replicas {
			continue
		}
		if t.Type == e.own && unmet {
			break // after every other
		}
		if err := e.scale(t); err != nil {
			unmet = true
			failed[t.Type]++
			n := failed[t.Type]
			d := enforceRetry.Delay(n, err)
			if n == 1 || n%10 == 0 {
				e.logf("scale %s (attempt %d): %v; again in %v", t, n, err, d.Round(time.Millisecond))
			}
			if n == 1 {
				e.warn(fmt.Sprintf("scale %s: %v", t, err))
			}
			if wait < 0 || d < wait {
				wait = d
			}
			continue
		}
		if n := failed[t.Type]; n > 0 {
			e.logf("scaled %s, after %d failed attempts", t, n)
		} else {
			e.logf("scaled %s", t)
		}
		set[t.Type], failed[t.Type] = t.Replicas, 0
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
	cctx, cancel := context.WithTimeout(context.Background(), scaleTimeout)
	defer cancel()
	return e.scaler.Scale(cctx, t.Type, t.Replicas)
}
