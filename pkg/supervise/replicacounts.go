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
