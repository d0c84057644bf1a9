package supervise_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// TestKeeperSuccessWorkers: under successWorkers 50%, a job of 4 workers
// succeeds when the second worker does, worker 0 or not; the workers
// still running are stopped.
func TestKeeperSuccessWorkers(t *testing.T) {
	j := newJob(t, "worker:4:1", func(c *supervise.Job) { c.SuccessWorkers = &supervise.Quota{N: 50, Percent: true} })
	for _, r := range []string{"worker-0", "worker-1", "worker-2", "worker-3"} {
		j.set(r, record.StateRunning, 0)
	}
	j.keep(-1)
	j.set("worker-3", record.StateSucceeded, 0, 0)
	j.wait("worker-3 counted", func(s *record.Status) bool { return s.HasSucceeded("worker", 3) })
	if s, _ := j.store.Get(t.Context()); s.Ended() {
		t.Fatalf("the job ended with 1 of 4 workers: %+v", s.Conditions)
	}
	j.set("worker-2", record.StateSucceeded, 0, 0)
	s := j.wait("the job to end", (*record.Status).Ended)
	c := s.Condition(record.JobSucceeded)
	if c == nil || c.Status != record.ConditionTrue || c.Message != "2 of 4 workers succeeded (success workers 50%): worker 2-3" {
		t.Errorf("Succeeded condition %+v", c)
	}
	if diff := cmp.Diff([]string{"worker"}, s.Stop); diff != "" {
		t.Errorf("stop (-want +got):\n%s", diff)
	}
}

// TestKeeperDynamicWorkers: with enableDynamicWorker, as in Kubeflow, a
// worker's permanent failure leaves the job running and the chief
// decides; without it, the same failure fails the job.
func TestKeeperDynamicWorkers(t *testing.T) {
	for _, dynamic := range []bool{true, false} {
		j := newJob(t, "chief:1:1,ps:1:1,worker:3:1", func(c *supervise.Job) { c.Layout.Sparse = dynamic })
		for _, r := range []string{"chief-0", "ps-0", "worker-0", "worker-1", "worker-2"} {
			j.set(r, record.StateRunning, 0)
		}
		j.keep(-1)
		j.set("worker-1", record.StateFailed, 0, 1)
		j.set("worker-0", record.StateFailed, 0, 1)
		s := j.wait("both failures counted, or the job to end", func(s *record.Status) bool { return s.Ended() || len(s.Failures) == 2 })
		if !dynamic {
			if c := s.Condition(record.JobFailed); c == nil || c.Reason != supervise.ReasonReplicaFailed {
				t.Errorf("without dynamic workers: Failed condition %+v", c)
			}
			continue
		}
		if s.Ended() || s.ReplicaStatuses["Worker"].Failed != 2 || s.ReplicaStatuses["Worker"].Active != 1 {
			t.Fatalf("dynamic workers: ended %v, workers %+v", s.Ended(), s.ReplicaStatuses["Worker"])
		}
		j.set("chief-0", record.StateSucceeded, 0, 0)
		s = j.wait("the chief to decide", (*record.Status).Ended)
		if !s.IsTrue(record.JobSucceeded) || s.ReplicaStatuses["Worker"].Failed != 2 {
			t.Errorf("dynamic workers: conditions %+v, workers %+v", s.Conditions, s.ReplicaStatuses["Worker"])
		}
	}
}

// TestKeeperDynamicWorkersCannotSucceed: with dynamic workers, a failure
// that leaves the job no way to succeed fails it: worker 0 without a
// chief, any worker under AllWorkers, one too many under successWorkers.
func TestKeeperDynamicWorkersCannotSucceed(t *testing.T) {
	for _, tc := range []struct {
		name     string
		edit     func(*supervise.Job)
		survives string // a failure the job survives
		fails    string // the failure after which it cannot succeed
	}{
		{"worker 0 decides", nil, "worker-2", "worker-0"},
		{"AllWorkers", func(c *supervise.Job) { c.SuccessPolicy = supervise.AllWorkers }, "", "worker-2"},
		{"successWorkers 2", func(c *supervise.Job) { c.SuccessWorkers = &supervise.Quota{N: 2} }, "worker-0", "worker-2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := newJob(t, "ps:1:1,worker:3:1", func(c *supervise.Job) {
				c.Layout.Sparse = true
				if tc.edit != nil {
					tc.edit(c)
				}
			})
			for _, r := range []string{"ps-0", "worker-0", "worker-1", "worker-2"} {
				j.set(r, record.StateRunning, 0)
			}
			j.keep(-1)
			if tc.survives != "" {
				j.set(tc.survives, record.StateFailed, 0, 1)
				s := j.wait("the failure counted", func(s *record.Status) bool { return len(s.Failures) == 1 })
				if s.Ended() {
					t.Fatalf("the job ended at the failure of %s: %+v", tc.survives, s.Conditions)
				}
			}
			j.set(tc.fails, record.StateFailed, 0, 1)
			s := j.wait("the job to end", (*record.Status).Ended)
			if c := s.Condition(record.JobFailed); c == nil || !strings.Contains(c.Message, "can no longer succeed") {
				t.Errorf("Failed condition %+v, want one saying the job can no longer succeed", c)
			}
		})
	}
}

// TestKeeperEvaluatorGrace: the chief succeeds while the evaluator runs:
// the job succeeds at once and the parameter server stops, but the
// evaluator goes on until it finishes, and its own outcome is counted.
func TestKeeperEvaluatorGrace(t *testing.T) {
	for _, outcome := range []record.State{record.StateSucceeded, record.StateFailed} {
		j := newJob(t, "chief:1:1,evaluator:1:1,ps:1:1", func(c *supervise.Job) { c.EvaluatorGrace = time.Hour })
		for _, r := range []string{"chief-0", "evaluator-0", "ps-0"} {
			j.set(r, record.StateRunning, 0)
		}
		j.keep(-1)
		j.set("chief-0", record.StateSucceeded, 0, 0)
		s := j.wait("the job to end", (*record.Status).Ended)
		if !s.IsTrue(record.JobSucceeded) || !slices.Equal(s.Stop, []string{"ps"}) || s.EvaluatorDeadline == nil ||
			s.ReplicaStatuses["Evaluator"].Active != 1 {
			t.Fatalf("at the chief's success: stop %v, deadline %v, evaluator %+v", s.Stop, s.EvaluatorDeadline, s.ReplicaStatuses["Evaluator"])
		}
		if !s.EvaluatorDeadline.Time.Equal(s.CompletionTime.Add(time.Hour)) {
			t.Errorf("evaluator deadline %v, want an hour after %v", s.EvaluatorDeadline, s.CompletionTime)
		}
		j.set("evaluator-0", outcome, 0, map[record.State]int32{record.StateSucceeded: 0, record.StateFailed: 1}[outcome])
		s = j.wait("the evaluator's outcome", func(s *record.Status) bool { return slices.Contains(s.Stop, "evaluator") })
		want := &record.ReplicaStatus{Succeeded: 1}
		if outcome == record.StateFailed {
			want = &record.ReplicaStatus{Failed: 1}
			if s.Failures["evaluator-0"] == nil {
				t.Errorf("the evaluator's failure is not kept: %+v", s.Failures)
			}
		}
		if diff := cmp.Diff(want, s.ReplicaStatuses["Evaluator"]); diff != "" || !s.IsTrue(record.JobSucceeded) {
			t.Errorf("evaluator %s after the job succeeded (-want +got):\n%s", outcome, diff)
		}
	}
}

// TestKeeperEvaluatorGraceExpires: an evaluator still running when its
// time is up is stopped (its type joins stop) and released under
// cleanPodPolicy All; the keeper's own StatefulSet, which waited for it,
// goes once it has said how it ended.
func TestKeeperEvaluatorGraceExpires(t *testing.T) {
	j := newJob(t, "chief:1:1,evaluator:1:1,ps:1:1", func(c *supervise.Job) {
		c.EvaluatorGrace, c.CleanPodPolicy = time.Millisecond, supervise.CleanAll
	})
	for _, r := range []string{"chief-0", "evaluator-0", "ps-0"} {
		j.set(r, record.StateRunning, 0)
	}
	j.keep(-1)
	j.set("chief-0", record.StateSucceeded, 0, 0)
	j.set("ps-0", record.StateStopped, 0, 143) // released at once, it said so as its pod went
	s := j.wait("the evaluator stopped", func(s *record.Status) bool { return slices.Contains(s.Stop, "evaluator") })
	j.set("evaluator-0", record.StateStopped, 0, 143)
	j.sc.await(t, "chief to 0", "ps to 0", "evaluator to 0", "keeper to 0")
	j.stop()
	if diff := cmp.Diff([]string{"JobSucceeded", "Teardown", "EvaluatorStopped", "Teardown", "Teardown"}, j.events.events()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if rs := s.ReplicaStatuses["Evaluator"]; rs.Active != 0 || rs.Succeeded != 0 {
		t.Errorf("a stopped evaluator counted as %+v", rs)
	}
}

// TestKeeperJobRestart: under restart scope Job, 100 workers that fail
// together raise the job's restart generation once; a failure in the new
// generation raises it again, and past backoffLimit fails the job.
func TestKeeperJobRestart(t *testing.T) {
	j := newJob(t, "worker:100:1", func(c *supervise.Job) { c.RestartScope, c.BackoffLimit = supervise.RestartScopeJob, ptr[int32](1) })
	for i := range 100 {
		j.set(fmt.Sprintf("worker-%d", i), record.StateRestarting, 0, 143)
	}
	j.keep(-1)
	s := j.wait("the job restart", func(s *record.Status) bool { return s.RestartGeneration > 0 })
	if s.RestartGeneration != 1 || s.Restarts != 1 || s.Ended() {
		t.Fatalf("generation %d, restarts %d, ended %v: want 1 job restart for 100 failures", s.RestartGeneration, s.Restarts, s.Ended())
	}
	r, _ := supervise.ParseRef("worker-7")
	j.board.Reporter(r).Report(supervise.Report{Replica: record.Replica{State: record.StateRestarting, Restarts: 1, Generation: 1, LastExitCode: ptr[int32](143)}})
	s = j.wait("the job to fail", (*record.Status).Ended)
	if c := s.Condition(record.JobFailed); c == nil || c.Reason != supervise.ReasonBackoffLimitExceeded || s.RestartGeneration != 1 {
		t.Errorf("Failed %+v, generation %d: want BackoffLimitExceeded at generation 1", c, s.RestartGeneration)
	}
}
