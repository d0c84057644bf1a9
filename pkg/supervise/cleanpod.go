package supervise

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tfgen/tfgen/pkg/record"
)

// settleTimeout bounds the wait, once the job has ended, for the
// replicas still training to say how they ended before their types are
// released; it covers a training process killed after its grace period.
const settleTimeout = time.Minute

// recordGrace bounds the wait, once the job has ended, for the first
// record of a replica whose pod has none: one that started as the job
// ended reports within a round trip through the API server, and its last
// words follow. A pod that never ran a supervisor (one left
// pending) has nothing to say.
const recordGrace = 5 * time.Second

// StopTypes returns the replica types whose training stops when the job
// has ended, by clean-pod policy: every type (All); the types with a
// replica that has not finished (Running; a replica that never reported
// has not); none (None).
func (j *Job) StopTypes(finished func(t string, index int32) bool) []string {
	if j.CleanPodPolicy == CleanNone {
		return nil
	}
	return slices.DeleteFunc(j.Types(), func(t string) bool {
		if j.CleanPodPolicy != CleanRunning {
			return false
		}
		for i := range j.replicas(t) {
			if !finished(t, i) {
				return false
			}
		}
		return true
	})
}

// end records what stops now that the job has ended: the replica types
// whose training stops (Stop: every type at the deadline, else by the
// clean pod policy); and it counts a succeeded job's active replicas as
// succeeded, as Kubeflow does, and a failed job's replicas that stop as
// no longer active. An evaluator that a succeeded job would stop gets
// EvaluatorGrace first (graceEvaluator).
func (j *Job) end(n *record.Status, now time.Time, ch *change) {
	ch.ended = true
	n.Stop = j.StopTypes(n.Finished)
	why := "clean pod policy " + string(j.CleanPodPolicy)
	if pastDeadline(n) {
		n.Stop, why = j.Types(), "active deadline"
	}
	if n.IsTrue(record.JobSucceeded) && j.EvaluatorGrace > 0 && slices.Contains(n.Stop, evaluator) {
		n.Stop = slices.DeleteFunc(n.Stop, func(t string) bool { return t == evaluator })
		at := record.NewTime(now.Add(j.EvaluatorGrace))
		n.EvaluatorDeadline = &at
	}
	if len(n.Stop) > 0 {
		ch.notes = append(ch.notes, fmt.Sprintf("stopping replica types %s (%s)", strings.Join(n.Stop, ", "), why))
	}
	n.RestartGrants = nil
	for t, rs := range n.ReplicaStatuses {
		switch {
		case graced(n) && t == record.KubeflowType(evaluator):
		case n.IsTrue(record.JobSucceeded):
			rs.Succeeded += rs.Active
			rs.Active = 0
		case slices.ContainsFunc(n.Stop, func(s string) bool { return record.KubeflowType(s) == t }):
			rs.Active = 0
		}
	}
}

// release decides which replica types are released (Teardown: their
// StatefulSets go to zero) now that the job has ended. Under clean pod
// policy All every type goes at once; under Running each type goes once
// every replica of it has said how it ended (Succeeded, Failed, Stopped
// or Idle) or has no pod, so that what it said, its output's end with
// it, is kept; under None nothing goes, until the TTL after finishing,
// which releases every type. The keeper's own StatefulSet (KeeperType)
// goes last: once every type has gone and every replica has said how it
// ended, so that the keeper is still there to keep their words. A
// replica that does not say is waited for settleTimeout at most; one
// whose pod has no record is waited for recordGrace, then taken to have
// never trained, with nothing to say; an evaluator given time is waited
// for.
func (j *Job) release(n *record.Status, obs []Observed, now time.Time, ch *change) {
	if len(j.Layout.Roles) == 0 {
		return // a job of its own: no StatefulSet of tfgen's
	}
	all, since, why := j.CleanPodPolicy == CleanAll, n.CompletionTime.Time, "clean pod policy "+string(j.CleanPodPolicy)
	if due, ok := j.ttlDue(n); ok {
		if now.Before(due) {
			ch.wakeBy(due)
		} else {
			all, since, why = true, due, "TTL after finished"
		}
	}
	if j.CleanPodPolicy == CleanNone && !all {
		return
	}
	if n.EvaluatorDeadline != nil && !now.Before(n.EvaluatorDeadline.Time) {
		since = later(since, n.EvaluatorDeadline.Time) // it was stopped then
	}
	s := saying{n: n, obs: map[string]Observed{}, now: now, since: since}
	for _, o := range obs {
		s.obs[o.Ref.String()] = o
	}
	var released []string
	for _, t := range j.Types() {
		if slices.Contains(n.Teardown, t) || (t == evaluator && graced(n)) {
			continue
		}
		if all || s.said(j, t) {
			released = append(released, t)
			n.Teardown = append(n.Teardown, t)
		}
	}
	typesGone := !slices.ContainsFunc(j.Types(), func(t string) bool { return !slices.Contains(n.Teardown, t) })
	if typesGone && !slices.Contains(n.Teardown, KeeperType) && !slices.ContainsFunc(j.Types(), func(t string) bool { return !s.said(j, t) }) {
		released = append(released, KeeperType)
		n.Teardown = append(n.Teardown, KeeperType)
	}
	if !slices.Contains(n.Teardown, KeeperType) && !s.wake.IsZero() {
		ch.wakeBy(s.wake)
	}
	if len(released) > 0 {
		ch.released = true
		reason := ReasonTeardown
		if why == "TTL after finished" {
			reason = ReasonTTLExpired
		}
		ch.events = append(ch.events, Event{Type: "Normal", Reason: reason, Action: "Teardown",
			Note: fmt.Sprintf("releasing %s (%s)", strings.Join(released, ", "), why)})
	}
}

// saying answers, for release, whether a type's replicas have said how
// they ended, given up on those that take too long, and says when the
// next of them will be given up on.
type saying struct {
	n     *record.Status
	obs   map[string]Observed // by replica
	now   time.Time
	since time.Time // when the replicas were told to stop
	wake  time.Time // the next give-up
}

// said reports whether every replica of type t has said how it ended:
// none is still running or restarting, or they have been waited for long
// enough. Only the types told to stop (Stop) have anything left to say.
func (s *saying) said(j *Job, t string) bool {
	if !slices.Contains(s.n.Stop, t) {
		return true
	}
	for i := range j.replicas(t) {
		if s.n.Finished(t, i) {
			continue
		}
		o, ok := s.obs[Ref{Type: t, Index: i}.String()]
		switch {
		case !ok:
			continue // no pod: nothing to say
		case o.State == "":
			// A pod with no record yet: its replica may have started as
			// the job ended, its report still on the way.
			if s.before(s.since.Add(recordGrace)) {
				return false
			}
			continue
		case !o.State.Active():
			continue
		}
		if s.before(s.since.Add(settleTimeout)) {
			return false
		}
	}
	return true
}

// before reports whether now is before at, and if so wakes the keeper
// at at, or earlier.
func (s *saying) before(at time.Time) bool {
	if !s.now.Before(at) {
		return false
	}
	if s.wake.IsZero() || at.Before(s.wake) {
		s.wake = at
	}
	return true
}

// Targets returns the replicas each StatefulSet of the job must have by
// its status s, in the order to set them: zero for the types released;
// for the others, the count of the job's layout as resized
// (record.Status.Layout) and, under clean pod policies Running and All,
// fewer for a type whose highest replicas have finished (succeeded or
// failed for good), whose pods would hold their requests (keep). Last,
// once every type is released, the keeper's own StatefulSet (KeeperType).
// A type at its spec's count and never resized is not listed: nothing is
// asked of it.
func (j *Job) Targets(s *record.Status) []Target {
	if s == nil || s.IsTrue(record.JobSuspended) || len(j.Layout.Roles) == 0 {
		return nil
	}
	var out []Target
	at := j.at(s)
	for _, t := range j.Types() {
		if slices.Contains(s.Teardown, t) {
			continue
		}
		n, keep := at.replicas(t), j.keep(s, t)
		if _, resized := s.Layout[t]; keep < n || resized {
			out = append(out, Target{Type: t, Replicas: keep})
		}
	}
	for _, t := range s.Teardown {
		if t != KeeperType {
			out = append(out, Target{Type: t})
		}
	}
	if slices.Contains(s.Teardown, KeeperType) {
		out = append(out, Target{Type: KeeperType})
	}
	return out
}

// keep is how many replicas type t's StatefulSet keeps by status s: the
// count of the layout as resized, less, under clean pod policies Running
// and All, its highest replicas that have finished (a StatefulSet removes
// its pods from the top), unless the job holds them (HoldFinished).
func (j *Job) keep(s *record.Status, t string) int32 {
	keep := j.at(s).replicas(t)
	for !j.HoldFinished && j.CleanPodPolicy != CleanNone && keep > 0 && s.Finished(t, keep-1) {
		keep--
	}
	return keep
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
