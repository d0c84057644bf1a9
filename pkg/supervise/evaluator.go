package supervise

import (
	"fmt"
	"slices"
	"time"

	"github.com/tfgen/tfgen/pkg/record"
)

// evaluator is the replica type that gets time to finish (EvaluatorGrace).
const evaluator = "evaluator"

// graced reports whether ended job n still gives its evaluator time to
// finish: it succeeded while the evaluator ran, and the evaluator has not
// finished or been stopped since.
func graced(n *record.Status) bool {
	return n.EvaluatorDeadline != nil && !slices.Contains(n.Stop, evaluator)
}

// graceEvaluator follows, after the job succeeded, the evaluator it gave
// time to finish: the evaluator's own outcome goes into the status, and
// once every evaluator replica has finished, or at the deadline, its type
// joins the types that stop (and then those released).
func (j *Job) graceEvaluator(n *record.Status, obs []Observed, now time.Time, ch *change) {
	if !graced(n) {
		return
	}
	seen := map[int32]Observed{}
	for _, o := range obs {
		if o.Type == evaluator {
			seen[o.Index] = o
		}
	}
	rs, running := &record.ReplicaStatus{}, false
	for i := range j.replicas(evaluator) {
		o, ok := seen[i]
		switch {
		case n.HasSucceeded(evaluator, i):
			rs.Succeeded++
		case n.HasFailed(evaluator, i):
			rs.Failed++
		case o.State == record.StateSucceeded:
			n.AddSucceeded(evaluator, i)
			rs.Succeeded++
		case o.State == record.StateFailed:
			n.AddFailed(evaluator, i)
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
		note := fmt.Sprintf("the evaluator was still running %v after the job succeeded: stopping it", j.EvaluatorGrace)
		ch.events = append(ch.events, Event{Type: "Normal", Reason: ReasonEvaluatorStopped, Action: "Stop", Note: note})
		rs.Active = 0
	}
	n.ReplicaStatuses[record.KubeflowType(evaluator)] = rs
	n.Stop = append(n.Stop, evaluator)
}
