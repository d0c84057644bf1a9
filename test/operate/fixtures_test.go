package operate

import (
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

// started records every replica of an mnist-shaped job as running since
// t0, with worker-1 restarted once after exit code 137.
func started(s *record.Status) {
	s.Start(t0)
	for _, r := range []struct {
		t string
		n int32
	}{{"chief", 1}, {"ps", 2}, {"worker", 3}} {
		for i := range r.n {
			e := s.Replica(r.t, i)
			e.Reason, e.UpdateTime = "Started", record.NewTime(t0)
		}
	}
	w := s.Replica("worker", 1)
	w.Restarts, w.LastExitCode, w.UpdateTime = 1, new(int32(137)), record.NewTime(t0.Add(5*time.Minute))
	s.Restarts = 1
	s.SetCondition(record.JobRunning, "JobRunning", "replica chief-0 is running", t0.Add(10*time.Second))
}

// runningJob is running: its pods are bound and run, but worker-2's image
// cannot be pulled and its supervisor never started.
func (c *cluster) runningJob(job string) {
	c.t.Helper()
	c.apply("tfjob-mnist", job, true)
	c.waitPods(job, mnistPods(job)...)
	c.kubelet(map[string]podState{
		job + "-chief-0": running, job + "-ps-0": running, job + "-ps-1": running,
		job + "-worker-0": running, job + "-worker-1": running, job + "-worker-2": pulling,
	})
	c.writeStatus(job, func(s *record.Status) {
		started(s)
		delete(s.Replicas, record.Key("worker", 2))
	})
}

// pendingJob has a record of a running job, but its pods are neither bound
// nor given a status (so that they go at once when it is suspended).
func (c *cluster) pendingJob(job string) {
	c.t.Helper()
	c.apply("tfjob-mnist", job, true)
	c.waitPods(job, mnistPods(job)...)
	c.writeStatus(job, started)
}

// succeededJob succeeded at t0+20m: the chief and the workers exited 0
// (their supervisors idle in running pods); the parameter servers were
// stopped by the clean-pod policy (Running), their StatefulSet scaled to 0.
func (c *cluster) succeededJob(job string) {
	c.t.Helper()
	c.apply("tfjob-mnist", job, true)
	c.scale(job, "ps", 0)
	c.waitPods(job, job+"-chief-0", job+"-worker-0", job+"-worker-1", job+"-worker-2")
	c.kubelet(map[string]podState{job + "-chief-0": running, job + "-worker-0": running, job + "-worker-1": running, job + "-worker-2": running})
	end := t0.Add(20 * time.Minute)
	c.writeStatus(job, func(s *record.Status) {
		started(s)
		for _, r := range s.Replicas {
			r.State, r.Reason, r.LastExitCode, r.UpdateTime = record.StateSucceeded, "Completed", new(int32(0)), record.NewTime(end)
			if r.Type == "ps" {
				r.State, r.Reason, r.LastExitCode = record.StateStopped, "Terminated", new(int32(143))
			}
		}
		s.Finish(true, "JobSucceeded", "replica chief-0 succeeded", end)
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
	c.waitPods(job)
	end := t0.Add(12 * time.Minute)
	c.writeStatus(job, func(s *record.Status) {
		started(s)
		for _, r := range s.Replicas {
			r.State, r.Reason, r.LastExitCode, r.UpdateTime = record.StateStopped, "Terminated", new(int32(143)), record.NewTime(end)
		}
		w := s.Replica("worker", 1)
		w.State, w.Reason, w.Restarts, w.LastExitCode = record.StateFailed, "Error", 4, new(int32(1))
		s.Restarts = 5
		s.SetCondition(record.JobRestarting, "ReplicaRestarting", "replica worker-1 restarts after exit code 1 (restart 4)", t0.Add(11*time.Minute))
		s.Finish(false, "BackoffLimitExceeded", "replica worker-1 exited with code 1: the job restarted 5 times, over its backoffLimit of 4", end)
	})
}
