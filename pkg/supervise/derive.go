package supervise

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/tfgen/tfgen/pkg/record"
)

// settleTimeout bounds the wait, under cleanPodPolicy Running, for the
// replicas that ran when the job ended to say whether they had finished.
const settleTimeout = time.Minute

// change is what one derivation did besides the status it returns.
type change struct {
	// wake: when to derive again though nothing else changed (the active
	// deadline, the time the teardown settles by); zero if never.
	wake time.Time
	// teardown: the replica types to scale to zero now.
	teardown []string
	// refused: the replica whose restart the backoff limit refused (it
	// has failed, though its record may not say so yet).
	refused string
	// started: the job started with this status (its deadline counts).
	started bool
	// ended: the job ended with this status.
	ended bool
	// granted: restarts granted.
	granted int
	// events about the job, to emit once the status is written.
	events []Event
}

// wakeBy makes the change wake the keeper at t, unless it wakes earlier.
func (c *change) wakeBy(t time.Time) {
	if c.wake.IsZero() || t.Before(c.wake) {
		c.wake = t
	}
}

// urgent reports whether the status must be written at once: it starts
// or ends the job, or lets replicas restart.
func (c change) urgent() bool { return c.started || c.ended || c.granted > 0 }

// derive returns the job's status as the replicas obs make it, starting
// from s (which it does not modify), at now, with gone restarts of pods
// that went away since s was written. It is the keeper's one decision,
// level-triggered: the same inputs give the same status, so it can run
// again from scratch after the keeper restarts.
//
// An ended job's status no longer changes. A suspended one changes only
// by `tfgen resume`. Otherwise, in order: the succeeded set grows by
// every replica that succeeded; the job-wide restart count is the gone
// pods' restarts plus each current pod's (restarts granted included);
// under backoffLimit each replica asking to restart gets a grant while
// the count is below the limit (in type and index order, so that a mass
// failure is cut exactly at the limit) and the first one past it fails the
// job; then success by the success policy, a failed replica, or the
// active deadline ends the job.
func (c *Config) derive(s *record.Status, obs []Observed, gone int32, now time.Time) (*record.Status, change) {
	n := s.DeepCopy()
	var ch change
	if n.Ended() {
		c.graceEvaluator(n, obs, now, &ch)
		c.settle(n, obs, now, &ch)
		return n, ch
	}
	if n.IsTrue(record.JobSuspended) {
		return n, ch
	}
	obs = slices.SortedFunc(slices.Values(obs), func(a, b Observed) int {
		return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.Index, b.Index))
	})
	for _, o := range obs {
		switch o.State {
		case record.StateSucceeded:
			n.AddSucceeded(o.Type, o.Index)
		case record.StateFailed:
			n.AddFailure(o.Ref.String(), record.Failure{ExitCode: o.LastExitCode, Reason: o.Reason, Restarts: o.Restarts})
		}
	}
	c.countRestarts(n, obs, gone, now, &ch)
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
	kind := c.kind()
	switch {
	case restarting:
		n.SetCondition(record.JobRestarting, "JobRestarting", fmt.Sprintf("%s %s is restarting.", kind, c.Job), now)
	case running:
		n.SetCondition(record.JobRunning, "JobRunning", fmt.Sprintf("%s %s is running.", kind, c.Job), now)
	}
	n.ReplicaStatuses = c.replicaStatuses(n, obs)
	if !n.Ended() {
		c.decide(n, obs, now, &ch)
	}
	if !n.Ended() && c.ActiveDeadline > 0 && n.StartTime != nil {
		ch.wake = n.StartTime.Add(c.ActiveDeadline)
	}
	if n.Ended() {
		c.end(n, obs, now, &ch)
		c.graceEvaluator(n, obs, now, &ch)
		c.settle(n, obs, now, &ch)
	}
	return n, ch
}

func (c *Config) kind() string {
	if c.Layout.Framework == "mxnet" {
		return "MXJob"
	}
	return "TFJob"
}

// countRestarts sets the job-wide restart count and, under backoffLimit,
// grants the restarts asked for while the count allows, failing the job at
// the first it cannot grant.
func (c *Config) countRestarts(n *record.Status, obs []Observed, gone int32, now time.Time, ch *change) {
	if c.RestartScope == RestartScopeJob {
		c.countJobRestarts(n, obs, now, ch)
		return
	}
	n.RestartsOfGonePods += gone
	present := map[string]Observed{}
	for _, o := range obs {
		present[o.Ref.String()] = o
	}
	for ref, g := range n.RestartGrants {
		if o, ok := present[ref]; !ok || o.Restarts >= g {
			delete(n.RestartGrants, ref)
		}
	}
	total := n.RestartsOfGonePods
	for _, o := range obs {
		total += max(o.Restarts, n.RestartGrants[o.Ref.String()])
	}
	if total < n.Restarts { // pods went away unseen: their restarts stay counted
		n.RestartsOfGonePods += n.Restarts - total
		total = n.Restarts
	}
	limit := c.BackoffLimit
	for _, o := range obs {
		ref := o.Ref.String()
		if o.State != record.StateRestarting || limit == nil || n.RestartGrants[ref] > o.Restarts {
			continue
		}
		if total >= *limit {
			note := fmt.Sprintf("replica %s exited with code %s and the job has used its backoff limit of %d restarts", ref, codeOf(o.LastExitCode), *limit)
			c.fail(n, ReasonBackoffLimitExceeded, note, now, ch)
			ch.refused = ref
			n.AddFailure(ref, record.Failure{ExitCode: o.LastExitCode, Reason: ReasonBackoffLimitExceeded, Restarts: o.Restarts})
			break
		}
		if n.RestartGrants == nil {
			n.RestartGrants = map[string]int32{}
		}
		n.RestartGrants[ref] = o.Restarts + 1
		total++
		ch.granted++
	}
	n.Restarts = total
	if limit != nil && total > *limit { // restarted without asking (sidecar mode: the kubelet restarts)
		c.fail(n, ReasonBackoffLimitExceeded, fmt.Sprintf("the job's replicas restarted %d times, past its backoff limit of %d", total, *limit), now, ch)
	}
}

// countJobRestarts, under restart scope Job, raises the job's restart
// generation when a replica asks to restart in the current one (under
// backoffLimit while the count allows; the first it cannot grant fails
// the job). Replicas that failed in an earlier generation, such as peers
// that a failure took down too, restart with the current one: a failure
// that takes down many replicas counts once.
func (c *Config) countJobRestarts(n *record.Status, obs []Observed, now time.Time, ch *change) {
	for _, o := range obs {
		if o.State != record.StateRestarting || o.Generation < n.RestartGeneration {
			continue
		}
		if limit := c.BackoffLimit; limit != nil && n.RestartGeneration >= *limit {
			note := fmt.Sprintf("replica %s exited with code %s and the job has used its backoff limit of %d restarts", o.Ref, codeOf(o.LastExitCode), *limit)
			c.fail(n, ReasonBackoffLimitExceeded, note, now, ch)
			ch.refused = o.Ref.String()
			n.AddFailure(o.Ref.String(), record.Failure{ExitCode: o.LastExitCode, Reason: ReasonBackoffLimitExceeded, Restarts: o.Restarts})
			break
		}
		n.RestartGeneration++
		ch.granted++
		ch.events = append(ch.events, Event{Type: "Normal", Reason: ReasonJobRestarting, Action: "Restart",
			Note: fmt.Sprintf("replica %s exited with code %s: every replica restarts (job restart %d)", o.Ref, codeOf(o.LastExitCode), n.RestartGeneration)})
		break
	}
	n.Restarts = n.RestartGeneration
}

func codeOf(c *int32) string {
	if c == nil {
		return "unknown"
	}
	return fmt.Sprint(*c)
}

// decide ends the job by its success policy, a failed replica, or the
// active deadline, in that order.
func (c *Config) decide(n *record.Status, obs []Observed, now time.Time, ch *change) {
	if c.JobSucceeded(n.HasSucceeded) {
		note := c.successNote(n)
		ch.events = append(ch.events, Event{Type: "Normal", Reason: ReasonJobSucceeded, Action: "Finish", Note: "the job succeeded: " + note})
		n.Finish(true, ReasonJobSucceeded, note, now)
		return
	}
	failed := func(t string, i int32) bool {
		ref := Ref{Type: t, Index: i}.String()
		return n.Failures[ref] != nil || slices.ContainsFunc(obs, func(o Observed) bool { return o.Ref.String() == ref && o.State == record.StateFailed })
	}
	for _, o := range obs {
		if o.State == record.StateFailed && !c.survives(o.Ref, failed) {
			note := o.Message
			if note == "" {
				note = fmt.Sprintf("replica %s failed with exit code %s (%s)", o.Ref, codeOf(o.LastExitCode), o.Reason)
			}
			if c.Layout.Sparse && o.Type == "worker" {
				note += "; with dynamic workers the job went on after worker failures, but it can no longer succeed by its success policy"
			}
			c.fail(n, ReasonReplicaFailed, note, now, ch)
			return
		}
	}
	if c.ActiveDeadline > 0 && n.StartTime != nil && !now.Before(n.StartTime.Add(c.ActiveDeadline)) {
		note := fmt.Sprintf("the job ran past its active deadline of %v", c.ActiveDeadline)
		ch.events = append(ch.events, Event{Type: "Warning", Reason: ReasonDeadlineExceeded, Action: "Fail", Note: note})
		c.fail(n, ReasonDeadlineExceeded, note, now, ch)
	}
}

// successNote says what succeeded: the success replica, the deciding
// type's replica 0, every worker, or enough workers.
func (c *Config) successNote(n *record.Status) string {
	if c.SuccessReplica != nil {
		return "replica " + c.SuccessReplica.String() + " succeeded"
	}
	k := c.Keeper()
	r, _ := c.Layout.Role("worker")
	switch {
	case k.Type == "worker" && c.SuccessPolicy == AllWorkers:
		return fmt.Sprintf("replica worker-0 to worker-%d succeeded", r.Replicas-1)
	case k.Type == "worker" && c.SuccessWorkers != nil:
		got, _ := c.workersSucceeded(n.HasSucceeded)
		return fmt.Sprintf("%d of %d workers succeeded (success workers %s): worker %s", got, r.Replicas, c.SuccessWorkers, n.Succeeded["worker"])
	}
	return "replica " + k.String() + " succeeded"
}

// fail ends the job as Failed (if it has not ended).
func (c *Config) fail(n *record.Status, reason, note string, now time.Time, ch *change) {
	if n.Ended() {
		return
	}
	if reason == ReasonBackoffLimitExceeded {
		ch.events = append(ch.events, Event{Type: "Warning", Reason: reason, Action: "Fail", Note: note})
	}
	ch.events = append(ch.events, Event{Type: "Warning", Reason: ReasonJobFailed, Action: "Finish", Note: note})
	n.Finish(false, reason, note, now)
}

// end records what stops now that the job has ended: the replica types
// whose training stops (Stop: every type at the deadline, else the types
// the clean pod policy names, with Running those with a replica not known
// to have finished), and under All every type is torn down at once; and
// it counts a succeeded job's active replicas as succeeded, as Kubeflow
// does, and a failed job's replicas that stop as no longer active. An
// evaluator that a succeeded job would stop gets EvaluatorGrace first
// (graceEvaluator).
func (c *Config) end(n *record.Status, obs []Observed, now time.Time, ch *change) {
	ch.ended = true
	failed := map[string]bool{}
	for _, o := range obs {
		failed[o.Ref.String()] = o.State == record.StateFailed
	}
	if ch.refused != "" {
		failed[ch.refused] = true
	}
	finished := func(t string, i int32) bool {
		return n.HasSucceeded(t, i) || failed[Ref{Type: t, Index: i}.String()]
	}
	own := c.Keeper().Type
	n.Stop = c.TeardownTypes(finished, own)
	if n.IsTrue(record.JobFailed) && n.Condition(record.JobFailed).Reason == ReasonDeadlineExceeded {
		n.Stop = c.Types(own)
	}
	graced := n.IsTrue(record.JobSucceeded) && c.EvaluatorGrace > 0 && slices.Contains(n.Stop, evaluator) && own != evaluator
	if graced {
		n.Stop = slices.DeleteFunc(n.Stop, func(t string) bool { return t == evaluator })
		at := record.NewTime(now.Add(c.EvaluatorGrace))
		n.EvaluatorDeadline = &at
	}
	if c.CleanPodPolicy == CleanAll {
		// With an evaluator given time, the keeper's own type (the
		// keeper decides when that time is up) goes with it, later.
		n.Teardown = slices.DeleteFunc(c.Types(own), func(t string) bool { return graced && (t == evaluator || t == own) })
		ch.teardown = n.Teardown
	}
	n.RestartGrants = nil
	for t, rs := range n.ReplicaStatuses {
		switch {
		case graced && t == record.KubeflowType(evaluator):
		case n.IsTrue(record.JobSucceeded):
			rs.Succeeded += rs.Active
			rs.Active = 0
		case slices.ContainsFunc(n.Stop, func(s string) bool { return record.KubeflowType(s) == t }):
			rs.Active = 0
		}
	}
}

// evaluator is the replica type that gets time to finish (EvaluatorGrace).
const evaluator = "evaluator"

// graceEvaluator follows, after the job succeeded, the evaluator it gave
// time to finish: the evaluator's own outcome goes into the status, and
// once every evaluator replica has finished, or at the deadline, its type
// joins the types that stop (and, under cleanPodPolicy All, is torn down
// with the keeper's own type, which waited for it).
func (c *Config) graceEvaluator(n *record.Status, obs []Observed, now time.Time, ch *change) {
	if n.EvaluatorDeadline == nil || slices.Contains(n.Stop, evaluator) {
		return
	}
	role, _ := c.Layout.Role(evaluator)
	seen := map[int32]Observed{}
	for _, o := range obs {
		if o.Type == evaluator {
			seen[o.Index] = o
		}
	}
	rs, running := &record.ReplicaStatus{}, false
	for i := range role.Replicas {
		o, ok := seen[i]
		switch {
		case n.HasSucceeded(evaluator, i):
			rs.Succeeded++
		case o.State == record.StateSucceeded:
			n.AddSucceeded(evaluator, i)
			rs.Succeeded++
		case o.State == record.StateFailed:
			n.AddFailure(o.Ref.String(), record.Failure{ExitCode: o.LastExitCode, Reason: o.Reason, Restarts: o.Restarts})
			rs.Failed++
		case o.State.Active():
			rs.Active++
			running = true
		case ok && o.State == "": // its supervisor's first word on the way
			running = true
		}
	}
	if n.ReplicaStatuses == nil {
		n.ReplicaStatuses = map[string]*record.ReplicaStatus{}
	}
	deadline := n.EvaluatorDeadline.Time
	if running && now.Before(deadline) {
		n.ReplicaStatuses[record.KubeflowType(evaluator)] = rs
		ch.wakeBy(deadline)
		return
	}
	if running {
		note := fmt.Sprintf("the evaluator was still running %v after the job succeeded: stopping it", c.EvaluatorGrace)
		ch.events = append(ch.events, Event{Type: "Normal", Reason: ReasonEvaluatorStopped, Action: "Stop", Note: note})
		rs.Active = 0
	}
	n.ReplicaStatuses[record.KubeflowType(evaluator)] = rs
	n.Stop = append(n.Stop, evaluator)
	if c.CleanPodPolicy == CleanAll {
		late := []string{evaluator}
		if own := c.Keeper().Type; !slices.Contains(n.Teardown, own) {
			late = append(late, own)
		}
		n.Teardown = append(n.Teardown, late...)
		ch.teardown = append(ch.teardown, late...)
	}
}

// settle decides, under cleanPodPolicy Running, which of the types whose
// training stopped at the job's end are torn down: those with a replica
// that had not finished (no pod, stopped, or idle: its pod came up after
// the end). A replica seen running, or
// whose pod has no record yet, may have finished just before the end (its
// record on the way): its type waits until every such replica says
// (Stopped, Idle, Succeeded or Failed), at most settleTimeout after the
// end.
func (c *Config) settle(n *record.Status, obs []Observed, now time.Time, ch *change) {
	if c.CleanPodPolicy != CleanRunning {
		return
	}
	seen := map[string]Observed{}
	for _, o := range obs {
		seen[o.Ref.String()] = o
	}
	late := n.CompletionTime != nil && !now.Before(n.CompletionTime.Add(settleTimeout))
	for _, t := range n.Stop {
		if slices.Contains(n.Teardown, t) {
			continue
		}
		role, _ := c.Layout.Role(t)
		if len(c.Layout.Roles) == 0 {
			role.Replicas = 1
		}
		unfinished, unsure := false, false
		for i := range role.Replicas {
			ref := Ref{Type: t, Index: i}.String()
			o, ok := seen[ref]
			switch {
			case n.HasSucceeded(t, i) || n.Failures[ref] != nil || o.State.Finished():
			case !ok || o.State == record.StateStopped || o.State == record.StateIdle:
				// An idle replica never trained here, and its pod holds
				// its node: a running pod, as the policy has it.
				unfinished = true
			default: // running, or its supervisor's first word on the way
				unsure = true
			}
		}
		switch {
		case unfinished || (unsure && late):
			n.Teardown = append(n.Teardown, t)
			ch.teardown = append(ch.teardown, t)
		case unsure:
			ch.wakeBy(n.CompletionTime.Add(settleTimeout))
		}
	}
}

// replicaStatuses counts each type's replicas as Kubeflow does: active
// (running or restarting), succeeded (in the succeeded set) and failed.
func (c *Config) replicaStatuses(n *record.Status, obs []Observed) map[string]*record.ReplicaStatus {
	out := map[string]*record.ReplicaStatus{}
	for _, r := range c.Layout.Roles {
		if r.Replicas > 0 {
			out[record.KubeflowType(r.Type)] = &record.ReplicaStatus{Succeeded: n.Succeeded[r.Type].Count(r.Replicas)}
		}
	}
	if len(c.Layout.Roles) == 0 {
		rs := &record.ReplicaStatus{}
		if n.HasSucceeded(c.Self.Type, c.Self.Index) {
			rs.Succeeded = 1
		}
		out[record.KubeflowType(c.Self.Type)] = rs
	}
	for _, o := range obs {
		rs := out[record.KubeflowType(o.Type)]
		if rs == nil || n.HasSucceeded(o.Type, o.Index) {
			continue
		}
		switch {
		case o.State.Active():
			rs.Active++
		case o.State == record.StateFailed:
			rs.Failed++
		}
	}
	return out
}
