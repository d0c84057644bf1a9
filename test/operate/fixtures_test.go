package operate

import (
	"slices"
	"time"

	"github.com/tfgen/tfgen/pkg/record"
)

// The fixtures are examples/tfjob-mnist.yaml (a chief, two parameter
// servers, three workers) rendered under another name, with pods and a
// record as the kubelet and the supervisors would leave them.

// mnistPods are the pods of an mnist-shaped job named job.
func mnistPods(job string) []string {
	var out []string
	for _, r := range []string{"chief-0", "ps-0", "ps-1", "worker-0", "worker-1", "worker-2"} {
		out = append(out, job+"-"+r)
	}
	return out
}

// mnistReplicas are the replicas of an mnist-shaped job.
var mnistReplicas = []string{"chief-0", "ps-0", "ps-1", "worker-0", "worker-1", "worker-2"}

// started is the status of an mnist-shaped job whose replicas all run
// since t0, worker-1 restarted once.
func started(s *record.Status) {
	s.Start(t0)
	s.Restarts = 1
	s.SetCondition(record.JobRunning, "JobRunning", "TFJob mnist is running.", t0.Add(10*time.Second))
	s.ReplicaStatuses = map[string]*record.ReplicaStatus{"Chief": {Active: 1}, "PS": {Active: 2}, "Worker": {Active: 3}}
}

// runningRecords are the records the supervisors of a running job keep on
// its pods (not those of skip): each replica running, worker-1 after a
// restart that followed exit code 137.
func (c *cluster) runningRecords(job string, skip ...string) {
	c.t.Helper()
	recs := map[string]record.Replica{}
	for _, r := range mnistReplicas {
		if !slices.Contains(skip, r) {
			recs[job+"-"+r] = record.Replica{State: record.StateRunning, Reason: "Started"}
		}
	}
	if _, ok := recs[job+"-worker-1"]; ok {
		recs[job+"-worker-1"] = record.Replica{State: record.StateRunning, Reason: "Restarted", Restarts: 1, LastExitCode: new(int32(137))}
	}
	c.supervisors(recs)
}

// runningJob is running: its pods are bound and run, but worker-2's image
// cannot be pulled and its supervisor never started.
func (c *cluster) runningJob(job string) {
	c.t.Helper()
	c.apply("tfjob-mnist", job, true)
	c.job(job).WaitPods(mnistPods(job)...)
	c.kubelet(map[string]podState{
		job + "-chief-0": running, job + "-ps-0": running, job + "-ps-1": running,
		job + "-worker-0": running, job + "-worker-1": running, job + "-worker-2": pulling,
	})
	c.runningRecords(job, "worker-2")
	c.writeStatus(job, func(s *record.Status) {
		started(s)
		s.ReplicaStatuses["Worker"].Active = 2
	})
}

// pendingJob has the status and records of a running job, but its pods
// are neither bound nor given a status (so that they go at once when it is
// suspended).
func (c *cluster) pendingJob(job string) {
	c.t.Helper()
	c.apply("tfjob-mnist", job, true)
	c.job(job).WaitPods(mnistPods(job)...)
	c.runningRecords(job)
	c.writeStatus(job, started)
}

// succeededJob succeeded at t0+20m: the chief and the workers exited 0
// (their supervisors idle in running pods); the parameter servers were
// stopped by the clean-pod policy (Running), their StatefulSet scaled to 0.
func (c *cluster) succeededJob(job string) {
	c.t.Helper()
	c.apply("tfjob-mnist", job, true)
	c.scale(job, "ps", 0)
	c.job(job).WaitPods(job+"-chief-0", job+"-worker-0", job+"-worker-1", job+"-worker-2")
	c.kubelet(map[string]podState{job + "-chief-0": running, job + "-worker-0": running, job + "-worker-1": running, job + "-worker-2": running})
	done := record.Replica{State: record.StateSucceeded, Reason: "Completed", LastExitCode: new(int32(0))}
	w1 := done
	w1.Restarts = 1
	c.supervisors(map[string]record.Replica{job + "-chief-0": done, job + "-worker-0": done, job + "-worker-1": w1, job + "-worker-2": done})
	end := t0.Add(20 * time.Minute)
	c.writeStatus(job, func(s *record.Status) {
		started(s)
		s.AddSucceeded("chief", 0)
		for i := range int32(3) {
			s.AddSucceeded("worker", i)
		}
		s.Finish(true, "JobSucceeded", "replica chief-0 succeeded", end)
		s.ReplicaStatuses = map[string]*record.ReplicaStatus{"Chief": {Succeeded: 1}, "PS": {Succeeded: 2}, "Worker": {Succeeded: 3}}
		s.Stop, s.Teardown = []string{"ps"}, []string{"ps"}
	})
}

// failedJob failed at t0+12m: worker-1 kept failing until the job's
// backoffLimit (4) was reached; the clean-pod policy stopped the others and
// scaled every StatefulSet to 0.
func (c *cluster) failedJob(job string) {
	c.t.Helper()
	c.apply("tfjob-mnist", job, true)
	for _, t := range []string{"chief", "ps", "worker"} {
		c.scale(job, t, 0)
	}
	c.job(job).WaitPods()
	end := t0.Add(12 * time.Minute)
	c.writeStatus(job, func(s *record.Status) {
		started(s)
		s.Restarts = 4
		s.SetCondition(record.JobRestarting, "JobRestarting", "TFJob mnist is restarting.", t0.Add(11*time.Minute))
		s.Finish(false, "BackoffLimitExceeded", "replica worker-1 exited with code 1 and the job has used its backoff limit of 4 restarts", end)
		s.ReplicaStatuses = map[string]*record.ReplicaStatus{"Chief": {}, "PS": {}, "Worker": {Failed: 1}}
		s.AddFailure("worker-1", record.Failure{ExitCode: new(int32(1)), Reason: "BackoffLimitExceeded", Restarts: 2})
		s.Stop, s.Teardown = []string{"ps", "worker", "chief"}, []string{"ps", "worker", "chief"}
	})
}
