package supervise

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/tfgen/tfgen/pkg/record"
)

// change is what one derivation did besides the status it returns.
type change struct {
	// wake: when to derive again though nothing else changed (the active
	// deadline, the evaluator's grace, a release that waits, the TTL);
	// zero if never.
	wake time.Time
	// started: the job started with this status (its deadline counts).
	started bool
	// ended: the job ended with this status.
	ended bool
	// granted: restarts granted.
	granted int
	// released: replica types released.
	released bool
	// resized: the job's workers resized (elastic.go).
	resized bool
	// events about the job, to emit once the status is written.
	events []Event
	// notes for the keeper's log, once the status is written.
	notes []string
}

// wakeBy makes the change wake the keeper at t, unless it wakes earlier.
func (c *change) wakeBy(t time.Time) { c.wake = earliest(c.wake, t) }

// earliest returns the earliest of the times ts that are set; zero if
// none is.
func earliest(ts ...time.Time) time.Time {
	var at time.Time
	for _, t := range ts {
		if !t.IsZero() && (at.IsZero() || t.Before(at)) {
			at = t
		}
	}
	return at
}

// urgent reports whether the status must be written at once: it starts
// or ends the job, lets replicas restart, releases replicas, or resizes
// the job.
func (c change) urgent() bool {
	return c.started || c.ended || c.granted > 0 || c.released || c.resized
}

// observation is what derive derives the job's status from, besides the
// status itself.
type observation struct {
	// replicas as seen, one per pod.
	replicas []Observed
	// gone: restarts of pods that went away since the status was written.
	gone int32
	// departed: the last records of those pods: a replica that finished
	// in a pod that went away (its pod given back) finished all the same.
	departed []Observed
	// gated: the replica types whose StatefulSets the keeper has gated.
	gated []string
	// elastic: the elastic pods of the namespace, for an elastic job to
	// resize by; nil resizes nothing.
	elastic *elasticView
	now     time.Time
}

// elasticView is the elastic pods of the namespace as last seen, and when
// one last came or went.
type elasticView struct {
	pods     []ElasticPod
	activity time.Time
}

// derive returns the job's status as observation o makes it, starting
// from s (which it does not modify). It is the keeper's one decision,
// level-triggered: the same inputs give the same status, so it can run
// again from scratch after the keeper restarts. Each policy has a file
// of its own: backofflimit.go, success.go, cleanpod.go, evaluator.go,
// deadline.go, ttl.go, replicacounts.go and elastic.go; TestDerive
// covers them rule by rule.
//
// The job's counts are its layout's as resized (Job.at). An ended job's
// status changes only by what its end set going: the
// evaluator given time, and the release of its replicas. A suspended one
// changes only by `tfgen resume`. Otherwise, in order: the succeeded and
// failed sets grow by every replica that succeeded or failed; the
// job-wide restart count is the gone pods' restarts plus each current
// pod's (restarts granted included); under backoffLimit each replica
// asking to restart gets a grant while the count is below the limit (in
// type and index order, so that a mass failure is cut exactly at the
// limit) and the first one past it fails the job; then success by the
// success policy, a failed replica, or the active deadline ends the job;
// last, an elastic job that goes on may be resized (Job.resize).
func (j *Job) derive(s *record.Status, o observation) (*record.Status, change) {
	obs, gone, now := o.replicas, o.gone, o.now
	j = j.at(s)
	n := s.DeepCopy()
	var ch change
	if gate(n, o.gated) {
		ch.released = true // the finished replicas of the types gated go
	}
	absorb(n, o.departed)
	if n.Ended() {
		j.afterEnd(n, obs, gone, now, &ch)
		return n, ch
	}
	if n.IsTrue(record.JobSuspended) {
		return n, ch
	}
	obs = slices.SortedFunc(slices.Values(obs), func(a, b Observed) int {
		return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.Index, b.Index))
	})
	absorb(n, obs)
	j.countRestarts(n, obs, gone, now, &ch)
	started, running, restarting := false, false, false
	for _, o := range obs {
		started = started || (o.State != "" && o.State != record.StateIdle)
		running = running || o.State == record.StateRunning
		restarting = restarting || o.State == record.StateRestarting
	}
	if n.StartTime == nil && started {
		n.Start(now)
		ch.started = true
	}
	switch {
	case restarting:
		n.SetCondition(record.JobRestarting, "JobRestarting", fmt.Sprintf("%s %s is restarting.", j.kind(), j.Name), now)
	case running:
		n.SetCondition(record.JobRunning, "JobRunning", fmt.Sprintf("%s %s is running.", j.kind(), j.Name), now)
	}
	n.ReplicaStatuses = j.replicaStatuses(n, obs)
	if !n.Ended() {
		j.decide(n, obs, now, &ch)
	}
	if n.Ended() {
		j.end(n, now, &ch)
		j.graceEvaluator(n, obs, now, &ch)
		j.release(n, obs, now, &ch)
	}
	j.resize(n, o.elastic, now, &ch)
	return n, ch
}

// absorb takes into the succeeded and failed sets every replica whose
// record says it succeeded or failed.
func absorb(n *record.Status, obs []Observed) {
	for _, o := range obs {
		switch o.State {
		case record.StateSucceeded:
			n.AddSucceeded(o.Type, o.Index)
		case record.StateFailed:
			n.AddFailed(o.Type, o.Index)
			n.AddFailure(o.Ref.String(), record.Failure{ExitCode: o.LastExitCode, Reason: o.Reason, Restarts: o.Restarts})
		}
	}
}

// afterEnd follows an ended job, whose outcome stays as it was at its
// end: what its replicas say after it (records that reached the keeper
// late: an API outage, a keeper restarting) still goes into the sets, the
// counts by type and the restart count; the evaluator given time is
// followed; its replicas are released.
func (j *Job) afterEnd(n *record.Status, obs []Observed, gone int32, now time.Time, ch *change) {
	absorb(n, obs)
	j.countLate(n, obs, gone)
	j.countLateFinished(n)
	j.graceEvaluator(n, obs, now, ch)
	j.release(n, obs, now, ch)
}

// decide ends the job by its success policy, a failed replica, or the
// active deadline, in that order.
func (j *Job) decide(n *record.Status, obs []Observed, now time.Time, ch *change) {
	if j.JobSucceeded(n.HasSucceeded) {
		note := j.successNote(n)
		ch.events = append(ch.events, Event{Type: "Normal", Reason: ReasonJobSucceeded, Action: "Finish", Note: "the job succeeded: " + note})
		n.Finish(true, ReasonJobSucceeded, note, now)
		return
	}
	for _, o := range obs {
		if o.State == record.StateFailed && !j.survives(o.Ref, n.HasFailed) {
			note := o.Message
			if note == "" {
				note = fmt.Sprintf("replica %s failed with exit code %s (%s)", o.Ref, codeOf(o.LastExitCode), o.Reason)
			}
			if j.Layout.Sparse && o.Type == "worker" {
				note += "; with dynamic workers the job went on after worker failures, but it can no longer succeed by its success policy"
			}
			j.fail(n, ReasonReplicaFailed, note, now, ch)
			return
		}
	}
	j.checkDeadline(n, now, ch)
}

// fail ends the job as Failed (if it has not ended).
func (j *Job) fail(n *record.Status, reason, note string, now time.Time, ch *change) {
	if n.Ended() {
		return
	}
	if reason == ReasonBackoffLimitExceeded {
		ch.events = append(ch.events, Event{Type: "Warning", Reason: reason, Action: "Fail", Note: note})
	}
	ch.events = append(ch.events, Event{Type: "Warning", Reason: ReasonJobFailed, Action: "Finish", Note: note})
	n.Finish(false, reason, note, now)
}

func codeOf(c *int32) string {
	if c == nil {
		return "unknown"
	}
	return fmt.Sprint(*c)
}
