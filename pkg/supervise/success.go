package supervise

import (
	"fmt"

	"github.com/tfgen/tfgen/pkg/record"
)

// JobSucceeded reports whether the job has succeeded, given which
// replicas have: the success replica if one is set; else the chief (or
// master, or an MXNet scheduler, which exits once training is over); else
// worker 0, or every worker under AllWorkers, or as many workers as
// SuccessWorkers asks for; an MXTune job without workers succeeds when
// its tuners do. Parameter servers and evaluators never decide. A job
// without roles is its one replica.
func (j *Job) JobSucceeded(succeeded func(t string, index int32) bool) bool {
	all := func(t string) bool {
		n := j.replicas(t)
		for i := range n {
			if !succeeded(t, i) {
				return false
			}
		}
		return n > 0
	}
	switch {
	case j.SuccessReplica != nil:
		return succeeded(j.SuccessReplica.Type, j.SuccessReplica.Index)
	case len(j.Layout.Roles) == 0 && j.Solo != nil:
		return succeeded(j.Solo.Type, j.Solo.Index)
	}
	for _, t := range []string{"chief", "master", "scheduler"} {
		if j.replicas(t) > 0 {
			return all(t)
		}
	}
	if j.SuccessPolicy == AllWorkers {
		return all("worker")
	}
	if j.SuccessWorkers != nil {
		got, need := j.workersSucceeded(succeeded)
		return need > 0 && got >= need
	}
	if _, ok := j.Layout.Role("worker"); !ok {
		if _, ok := j.Layout.Role("tuner"); ok {
			return all("tuner")
		}
	}
	return succeeded("worker", 0)
}

// workersSucceeded counts the workers that succeeded, and says how many
// SuccessWorkers needs.
func (j *Job) workersSucceeded(succeeded func(t string, index int32) bool) (got, need int32) {
	n := j.replicas("worker")
	for i := range n {
		if succeeded("worker", i) {
			got++
		}
	}
	return got, j.SuccessWorkers.Of(n)
}

// survives reports whether the job goes on after replica failed failed:
// with dynamic workers (enableDynamicWorker), a worker's failure does not
// fail the job, as in Kubeflow, as long as the job can still succeed by
// its success policy (a chief, worker 0 or enough workers have not
// failed); hasFailed says which replicas have.
func (j *Job) survives(failed Ref, hasFailed func(t string, index int32) bool) bool {
	if !j.Layout.Sparse || failed.Type != "worker" {
		return false
	}
	return j.JobSucceeded(func(t string, i int32) bool { return !hasFailed(t, i) })
}

// successNote says what succeeded: the success replica, the deciding
// type's replica 0, every worker, or enough workers.
func (j *Job) successNote(n *record.Status) string {
	if j.SuccessReplica != nil {
		return "replica " + j.SuccessReplica.String() + " succeeded"
	}
	k := j.decider()
	workers := j.replicas("worker")
	switch {
	case k.Type == "worker" && j.SuccessPolicy == AllWorkers:
		return fmt.Sprintf("replica worker-0 to worker-%d succeeded", workers-1)
	case k.Type == "worker" && j.SuccessWorkers != nil:
		got, _ := j.workersSucceeded(n.HasSucceeded)
		return fmt.Sprintf("%d of %d workers succeeded (success workers %s): worker %s", got, workers, j.SuccessWorkers, n.Succeeded["worker"])
	}
	return "replica " + k.String() + " succeeded"
}
