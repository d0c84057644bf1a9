package supervise

import (
	"fmt"
	"time"

	"github.com/tfgen/tfgen/pkg/record"
)

// countRestarts sets the job-wide restart count and, under backoffLimit,
// grants the restarts asked for while the count allows, failing the job at
// the first it cannot grant.
func (j *Job) countRestarts(n *record.Status, obs []Observed, gone int32, now time.Time, ch *change) {
	if j.RestartScope == RestartScopeJob {
		j.countJobRestarts(n, obs, now, ch)
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
	limit := j.BackoffLimit
	for _, o := range obs {
		ref := o.Ref.String()
		if o.State != record.StateRestarting || limit == nil || n.RestartGrants[ref] > o.Restarts {
			continue
		}
		if total >= *limit {
			j.refuse(n, o, now, ch)
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
		j.fail(n, ReasonBackoffLimitExceeded, fmt.Sprintf("the job's replicas restarted %d times, past its backoff limit of %d", total, *limit), now, ch)
	}
}

// countLate counts, after the job ended, the restarts its replicas' records
// show that the count lacks (they reached the keeper late). Nothing is
// granted any more, and the count never falls: a grant the end overtook
// stays counted until it is taken up, or for good.
func (j *Job) countLate(n *record.Status, obs []Observed, gone int32) {
	if j.RestartScope == RestartScopeJob {
		return
	}
	n.RestartsOfGonePods += gone
	total := n.RestartsOfGonePods
	for _, o := range obs {
		total += o.Restarts
	}
	n.Restarts = max(n.Restarts, total)
}

// countJobRestarts, under restart scope Job, raises the job's restart
// generation when a replica asks to restart in the current one (under
// backoffLimit while the count allows; the first it cannot grant fails
// the job). Replicas that failed in an earlier generation, such as peers
// that a failure took down too, restart with the current one: a failure
// that takes down many replicas counts once.
func (j *Job) countJobRestarts(n *record.Status, obs []Observed, now time.Time, ch *change) {
	for _, o := range obs {
		if o.State != record.StateRestarting || o.Generation < n.RestartGeneration {
			continue
		}
		if limit := j.BackoffLimit; limit != nil && n.RestartGeneration >= *limit {
			j.refuse(n, o, now, ch)
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

// refuse fails the job because replica o asked for a restart past the
// backoff limit; o has failed for good.
func (j *Job) refuse(n *record.Status, o Observed, now time.Time, ch *change) {
	note := fmt.Sprintf("replica %s exited with code %s and the job has used its backoff limit of %d restarts", o.Ref, codeOf(o.LastExitCode), *j.BackoffLimit)
	j.fail(n, ReasonBackoffLimitExceeded, note, now, ch)
	n.AddFailed(o.Type, o.Index)
	n.AddFailure(o.Ref.String(), record.Failure{ExitCode: o.LastExitCode, Reason: ReasonBackoffLimitExceeded, Restarts: o.Restarts})
}
