package supervise

import "github.com/tfgen/tfgen/pkg/record"

// replicaStatuses counts each type's replicas as Kubeflow does: active
// (running or restarting), succeeded and failed (in the status's sets,
// which outlive the pods).
func (j *Job) replicaStatuses(n *record.Status, obs []Observed) map[string]*record.ReplicaStatus {
	out := map[string]*record.ReplicaStatus{}
	for _, r := range j.Roles() {
		if r.Replicas > 0 {
			out[record.KubeflowType(r.Type)] = &record.ReplicaStatus{
				Succeeded: n.Succeeded[r.Type].Count(r.Replicas), Failed: n.Failed[r.Type].Count(r.Replicas)}
		}
	}
	for _, o := range obs {
		rs := out[record.KubeflowType(o.Type)]
		if rs != nil && o.State.Active() && !n.Finished(o.Type, o.Index) {
			rs.Active++
		}
	}
	return out
}

// countLateFinished keeps an ended job's counts by type in step with its
// succeeded and failed sets, which records that reached the keeper after
// the end (an API outage, a keeper restarting) still grow. Counts never
// fall (at a success the end counted active replicas succeeded, as
// Kubeflow does); a late failure takes its place from the succeeded. The
// evaluator given time is graceEvaluator's.
func (j *Job) countLateFinished(n *record.Status) {
	for _, r := range j.Roles() {
		rs := n.ReplicaStatuses[record.KubeflowType(r.Type)]
		if rs == nil || (r.Type == evaluator && graced(n)) {
			continue
		}
		rs.Failed = max(rs.Failed, n.Failed[r.Type].Count(r.Replicas))
		rs.Succeeded = min(max(rs.Succeeded, n.Succeeded[r.Type].Count(r.Replicas)), r.Replicas-rs.Failed)
		rs.Active = max(0, min(rs.Active, r.Replicas-rs.Succeeded-rs.Failed))
	}
}
