package supervise

import (
	"slices"

	"github.com/tfgen/tfgen/pkg/record"
)

// A StatefulSet makes again any pod of its below its replicas, and
// removes its pods from the top only: a finished replica below a
// running one cannot simply go. So the keeper gates the type: it adds
// the scheduling gate FinishedGate to the type's pod template (the
// StatefulSet's update strategy is OnDelete: no running pod changes), and
// once the StatefulSet's controller has seen it, records the type Gated.
// A finished replica of a gated type then gives its pod back at once
// (Config.GivenBack): its supervisor ends and so does its pod, and the
// pod its StatefulSet makes again is gated, never scheduled, holding
// nothing; so is one made again after an eviction or a drain. A pod
// made again, gated, for a replica that has not finished (its running
// pod was evicted) has the gate lifted by the keeper.

// FinishedGate is the scheduling gate of the pods of a gated type.
const FinishedGate = "tfgen.io/finished"

// Gates returns the replica types that status s wants gated while the
// job runs: those with a finished replica below their target (the top of
// a type is given back by shrinking it), but under clean pod policy None,
// where every pod stays, and in a job that holds finished replicas
// (HoldFinished). Once the job has ended, its types are released.
func (j *Job) Gates(s *record.Status) []string {
	if s == nil || s.Ended() || j.HoldFinished || j.CleanPodPolicy == CleanNone || len(j.Layout.Roles) == 0 {
		return nil
	}
	var out []string
	for _, t := range j.Types() {
		if slices.Contains(s.Teardown, t) {
			continue
		}
		for i := range j.keep(s, t) {
			if s.Finished(t, i) {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// gate records in n the types the keeper has gated, for good (a gate is
// never taken off a template), and reports whether one is new.
func gate(n *record.Status, gated []string) bool {
	added := false
	for _, t := range gated {
		if !slices.Contains(n.Gated, t) {
			n.Gated, added = append(n.Gated, t), true
		}
	}
	slices.Sort(n.Gated)
	return added
}

// Lifts returns the replicas, of those observed, whose pods are gated
// and must not be: replicas that may train (not finished, below their
// type's target, the job neither ended nor suspended).
func (j *Job) Lifts(s *record.Status, obs []Observed) []Ref {
	if s == nil || s.Ended() || s.IsTrue(record.JobSuspended) {
		return nil
	}
	var out []Ref
	for _, o := range obs {
		if o.Gated && !s.Finished(o.Type, o.Index) && o.Index < j.keep(s, o.Type) {
			out = append(out, o.Ref)
		}
	}
	return out
}

// GivenBack reports whether the job, as s has it, gave back the pod of
// this replica, whose own record is rec: its type is torn down, or its
// StatefulSet shrank below it (Job.Targets), or it has finished and its
// type is gated. A nil s has given back nothing.
func (c *Config) GivenBack(s *record.Status, rec *record.Replica) bool {
	if s == nil {
		return false
	}
	finished := s.Finished(c.Self.Type, c.Self.Index) || rec != nil && rec.State.Finished()
	if finished && slices.Contains(s.Gated, c.Self.Type) {
		return true
	}
	for _, t := range c.Job.Targets(s) {
		if t.Type == c.Self.Type && c.Self.Index >= t.Replicas {
			return true
		}
	}
	return false
}
