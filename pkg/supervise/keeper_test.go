package supervise_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
	"github.com/tfgen/tfgen/pkg/supervise/board"
)

// countingStore counts the writes to a Memory store.
type countingStore struct {
	*record.Memory
	mu     sync.Mutex
	writes int
}

// Update counts a write as it is made, before Memory tells its watchers
// (a test that saw the write then finds it counted); Memory never retries.
func (c *countingStore) Update(ctx context.Context, mutate func(*record.Status) error) (*record.Status, error) {
	return c.Memory.Update(ctx, func(s *record.Status) error {
		err := mutate(s)
		if err == nil {
			c.mu.Lock()
			c.writes++
			c.mu.Unlock()
		}
		return err
	})
}

func (c *countingStore) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writes
}

// job is a job's keeper on a board of replicas, without processes.
type job struct {
	t      *testing.T
	pol    *supervise.Job
	board  *board.Board
	store  *countingStore
	events *recorder
	sc     *scaler
	stop   func()
}

func newJob(t *testing.T, roles string, edit func(*supervise.Job)) *job {
	pol := &supervise.Job{Name: "j", Layout: &cluster.Layout{Job: "j"}}
	var err error
	if pol.Layout.Roles, err = cluster.ParseRoles(roles); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(pol)
	}
	if err := pol.Validate(); err != nil {
		t.Fatal(err)
	}
	return &job{t: t, pol: pol, board: board.New(), store: &countingStore{Memory: &record.Memory{}}, events: &recorder{}, sc: &scaler{}}
}

// keeper returns the job's keeper (interval between writes; -1 writes
// every change at once).
func (j *job) keeper(interval time.Duration) *supervise.Keeper {
	return &supervise.Keeper{Job: j.pol, Replicas: j.board, Store: j.store, Reporter: j.events, Scaler: j.sc, WriteInterval: interval, Logf: j.t.Logf}
}

// runKeeper runs k until the returned stop is called (at the test's end
// at the latest), which waits for its last write.
func runKeeper(t *testing.T, k *supervise.Keeper) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		k.Run(ctx)
	}()
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
		}
	}
	t.Cleanup(stop)
	return stop
}

// set reports replica ref's record on the board.
func (j *job) set(ref string, st record.State, restarts int32, code ...int32) {
	r, err := supervise.ParseRef(ref)
	if err != nil {
		j.t.Fatal(err)
	}
	rec := record.Replica{State: st, Restarts: restarts}
	if len(code) > 0 {
		rec.LastExitCode = &code[0]
	}
	j.board.Reporter(r).Report(supervise.Report{Replica: rec})
}

// keep starts the keeper, with interval between writes.
func (j *job) keep(interval time.Duration) {
	j.stop = runKeeper(j.t, j.keeper(interval))
}

func (j *job) wait(what string, cond func(*record.Status) bool) *record.Status {
	j.t.Helper()
	return waitStatus(j.t, j.store, what, cond)
}

// TestKeeperMassFailure: 500 workers ask to restart at the same moment
// under a backoff limit of 10: exactly 10 get a restart (the first by
// index), and the job fails at the 11th.
func TestKeeperMassFailure(t *testing.T) {
	const n = 500
	j := newJob(t, fmt.Sprintf("ps:1:1,worker:%d:1", n), func(c *supervise.Job) { c.BackoffLimit = ptr[int32](10) })
	j.set("ps-0", record.StateRunning, 0)
	for i := range n {
		j.set(fmt.Sprintf("worker-%d", i), record.StateRestarting, 0, 137)
	}
	j.keep(supervise.DefaultWriteInterval)
	s := j.wait("the job to end", (*record.Status).Ended)
	if s.Restarts != 10 || len(s.RestartGrants) != 0 {
		t.Errorf("restarts %d, grants left %v: want 10, none once ended", s.Restarts, s.RestartGrants)
	}
	if c := s.Condition(record.JobFailed); c == nil || c.Reason != supervise.ReasonBackoffLimitExceeded ||
		c.Message != "replica worker-10 exited with code 137 and the job has used its backoff limit of 10 restarts" {
		t.Errorf("Failed condition %+v", c)
	}
	if j.store.count() != 1 {
		t.Errorf("%d writes of the status, want 1", j.store.count())
	}
	if diff := cmp.Diff([]string{"ps", "worker"}, s.Stop); diff != "" {
		t.Errorf("stopped (-want +got):\n%s", diff)
	}
	// Under cleanPodPolicy Running, a type goes once its replicas say
	// how they ended (or a minute has passed).
	j.set("ps-0", record.StateStopped, 0, 143)
	j.wait("the parameter servers released", func(s *record.Status) bool { return slices.Equal(s.Teardown, []string{"ps"}) })
	for i := range n - 1 {
		j.set(fmt.Sprintf("worker-%d", i), record.StateStopped, 1, 143)
	}
	j.set(fmt.Sprintf("worker-%d", n-1), record.StateStopped, 0, 137)
	j.wait("the workers released, then the keeper", func(s *record.Status) bool { return len(s.Teardown) == 3 })
	j.sc.await(t, "ps to 0", "worker to 0", "keeper to 0")
}

// TestKeeperGrantsInOrder: restarts are granted one by one as they are
// asked for, counted when granted, and dropped once taken up.
func TestKeeperGrantsInOrder(t *testing.T) {
	j := newJob(t, "worker:3:1", func(c *supervise.Job) { c.BackoffLimit = ptr[int32](2) })
	for i := range 3 {
		j.set(fmt.Sprintf("worker-%d", i), record.StateRunning, 0)
	}
	j.keep(supervise.DefaultWriteInterval)
	j.set("worker-2", record.StateRestarting, 0, 1)
	s := j.wait("a grant", func(s *record.Status) bool { return s.RestartGrants["worker-2"] == 1 })
	if s.Restarts != 1 || !s.IsTrue(record.JobRestarting) {
		t.Errorf("restarts %d, conditions %+v: want 1, Restarting", s.Restarts, s.Conditions)
	}
	j.set("worker-2", record.StateRunning, 1)
	s = j.wait("the grant taken up", func(s *record.Status) bool { return len(s.RestartGrants) == 0 })
	if s.Restarts != 1 {
		t.Errorf("restarts %d after the restart, want 1", s.Restarts)
	}
	j.set("worker-0", record.StateRestarting, 0, 1)
	j.wait("the second grant", func(s *record.Status) bool { return s.RestartGrants["worker-0"] == 1 && s.Restarts == 2 })
	j.set("worker-1", record.StateRestarting, 0, 1)
	s = j.wait("the job to fail", (*record.Status).Ended)
	if c := s.Condition(record.JobFailed); c == nil || c.Reason != supervise.ReasonBackoffLimitExceeded || s.Restarts != 2 {
		t.Errorf("restarts %d, Failed %+v: want 2, BackoffLimitExceeded", s.Restarts, c)
	}
}

// TestKeeperAllWorkersExact: with 1,000 workers under AllWorkers, the job
// succeeds when the last one does, not before, and counts them all; while
// the last runs, the workers' pods are gated, so that the finished ones
// give theirs back.
func TestKeeperAllWorkersExact(t *testing.T) {
	const n = 1000
	j := newJob(t, fmt.Sprintf("ps:2:1,worker:%d:1", n), func(c *supervise.Job) { c.SuccessPolicy = supervise.AllWorkers })
	for i := range 2 {
		j.set(fmt.Sprintf("ps-%d", i), record.StateRunning, 0)
	}
	for i := range n - 1 {
		j.set(fmt.Sprintf("worker-%d", i), record.StateSucceeded, 0, 0)
	}
	j.set(fmt.Sprintf("worker-%d", n-1), record.StateRunning, 0)
	j.keep(supervise.DefaultWriteInterval)
	s := j.wait("the counts", func(s *record.Status) bool { return s.ReplicaStatuses["Worker"] != nil })
	if s.Ended() || s.ReplicaStatuses["Worker"].Succeeded != n-1 || s.ReplicaStatuses["Worker"].Active != 1 {
		t.Fatalf("with one worker running: %+v, ended %v", s.ReplicaStatuses["Worker"], s.Ended())
	}
	j.wait("the workers gated", func(s *record.Status) bool { return slices.Equal(s.Gated, []string{"worker"}) })
	j.set(fmt.Sprintf("worker-%d", n-1), record.StateSucceeded, 0, 0)
	s = j.wait("the job to end", (*record.Status).Ended)
	for i := range 2 {
		j.set(fmt.Sprintf("ps-%d", i), record.StateStopped, 0, 143)
	}
	j.wait("every type released", func(s *record.Status) bool { return len(s.Teardown) == 3 })
	// The finished workers go at once, then the PS once it stopped, then
	// the keeper's own StatefulSet.
	j.sc.await(t, "gate worker", "worker to 0", "ps to 0", "keeper to 0")
	j.stop()
	if !s.IsTrue(record.JobSucceeded) || s.Succeeded["worker"].String() != fmt.Sprintf("0-%d", n-1) {
		t.Errorf("conditions %+v, succeeded %v", s.Conditions, s.Succeeded["worker"])
	}
	want := map[string]*record.ReplicaStatus{"Worker": {Succeeded: n}, "PS": {Succeeded: 2}}
	if diff := cmp.Diff(want, s.ReplicaStatuses); diff != "" {
		t.Errorf("replicaStatuses, active ones counted as succeeded as Kubeflow does (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"JobSucceeded", "Teardown", "Teardown"}, j.events.events()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestKeeperWritesFew: replicas that start within the write interval are
// written together; the job's end is written at once.
func TestKeeperWritesFew(t *testing.T) {
	j := newJob(t, "chief:1:1,worker:100:1", nil)
	j.set("chief-0", record.StateRunning, 0)
	j.keep(time.Hour)
	j.wait("the first write", func(s *record.Status) bool { return s.StartTime != nil })
	for i := range 100 {
		j.set(fmt.Sprintf("worker-%d", i), record.StateRunning, 0)
	}
	j.set("chief-0", record.StateSucceeded, 0, 0)
	j.wait("the job to end", (*record.Status).Ended)
	if j.store.count() != 2 {
		t.Errorf("%d writes, want 2: the start, then the end with every change since", j.store.count())
	}
}

// TestKeeperRestartsOfReplacedPods: a pod replaced by a new one keeps its
// restarts counted; a new keeper goes on from the status.
func TestKeeperRestartsOfReplacedPods(t *testing.T) {
	j := newJob(t, "worker:2:1", nil)
	j.keep(-1)
	j.set("worker-0", record.StateRunning, 3)
	j.set("worker-1", record.StateRunning, 1)
	j.wait("4 restarts", func(s *record.Status) bool { return s.Restarts == 4 })
	j.board.PodReporter(supervise.Ref{Type: "worker"}, "pod-2").Report(supervise.Report{Replica: record.Replica{State: record.StateRunning}})
	s := j.wait("the new pod", func(s *record.Status) bool { return s.RestartsOfGonePods == 3 })
	if s.Restarts != 4 {
		t.Errorf("restarts %d with a replaced pod, want 4", s.Restarts)
	}
	j.stop()
	j.keep(-1) // a new keeper: the board has changed since
	j.set("worker-1", record.StateRunning, 2)
	s = j.wait("one more restart", func(s *record.Status) bool { return s.Restarts == 5 })
	if s.RestartsOfGonePods != 3 {
		t.Errorf("restarts of gone pods %d after the keeper restarted, want 3", s.RestartsOfGonePods)
	}
}

// TestKeeperSuspended: a suspended job's status is left alone.
func TestKeeperSuspended(t *testing.T) {
	j := newJob(t, "worker:1:1", nil)
	j.store.Update(context.Background(), func(s *record.Status) error {
		s.SetCondition(record.JobSuspended, "TFJobSuspended", "", time.Now())
		return nil
	})
	j.set("worker-0", record.StateSucceeded, 0, 0)
	j.keep(-1)
	j.stop()
	if s, _ := j.store.Get(context.Background()); s.Ended() || j.store.count() != 1 {
		t.Errorf("a suspended job: %+v after %d writes", s, j.store.count())
	}
}

// TestKeeperRunningPolicyReleasesOnceSaid: under cleanPodPolicy Running
// a type is released once every replica of it has said how it ended, a
// finished type at once, and the keeper's own StatefulSet last.
func TestKeeperRunningPolicyReleasesOnceSaid(t *testing.T) {
	j := newJob(t, "chief:1:1,ps:1:1,worker:2:1", nil)
	for _, r := range []string{"chief-0", "ps-0", "worker-0", "worker-1"} {
		j.set(r, record.StateRunning, 0)
	}
	j.keep(-1)
	j.set("chief-0", record.StateSucceeded, 0, 0)
	s := j.wait("the job to end", (*record.Status).Ended)
	if diff := cmp.Diff([]string{"ps", "worker"}, s.Stop); diff != "" || !slices.Equal(s.Teardown, []string{"chief"}) {
		t.Fatalf("stop %v (-want +got): %s; teardown %v, want the chief's finished type alone", s.Stop, diff, s.Teardown)
	}
	j.set("worker-0", record.StateSucceeded, 0, 0) // it had finished
	j.set("ps-0", record.StateStopped, 0, 143)
	j.wait("the parameter server released", func(s *record.Status) bool { return slices.Equal(s.Teardown, []string{"chief", "ps"}) })
	j.set("worker-1", record.StateStopped, 0, 143)
	j.wait("every type released", func(s *record.Status) bool {
		return slices.Equal(s.Teardown, []string{"chief", "ps", "worker", supervise.KeeperType})
	})
	j.sc.await(t, "chief to 0", "ps to 0", "worker to 0", "keeper to 0")
}

// TestKeeperCountsLateRecords: records that reach the keeper after the
// job ended (an API outage hid them) still go into the succeeded and
// failed sets and the restart count; the outcome stays.
func TestKeeperCountsLateRecords(t *testing.T) {
	j := newJob(t, "chief:1:1,worker:2:1", nil)
	for _, r := range []string{"chief-0", "worker-0", "worker-1"} {
		j.set(r, record.StateRunning, 0)
	}
	j.keep(-1)
	j.set("chief-0", record.StateSucceeded, 0, 0)
	j.wait("the job to end", (*record.Status).Ended)
	j.set("worker-0", record.StateSucceeded, 1, 0)
	j.set("worker-1", record.StateFailed, 0, 3)
	s := j.wait("the late records", func(s *record.Status) bool { return s.HasSucceeded("worker", 0) && s.HasFailed("worker", 1) })
	if s.Restarts != 1 || !s.IsTrue(record.JobSucceeded) || s.Failures["worker-1"] == nil {
		t.Errorf("status %+v: want 1 restart counted, the job Succeeded, worker-1's failure kept", s)
	}
}
