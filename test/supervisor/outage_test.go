package supervisor

import (
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// TestAPIServerDownAcrossWorkersExits: the API server stops for 10 s
// while four workers train; meanwhile every worker exits (worker-1 fails
// first and is restarted, then all succeed), each sidecar failing to
// report it; the last worker's sidecar is then stopped (SIGSTOP) until
// the job has ended. The server comes back and the chief, which decides,
// exits at once: its record reaches the keeper before the last worker's,
// and maybe others'. No exit is lost: every status from the chief's exit
// on that has ended the job counts every replica as succeeded; neither
// the workers' type nor, last, the keeper's is released before every
// worker's exit is in the job's succeeded set and restart count (the
// chief's may go before); and once every StatefulSet is at zero every pod
// carries its replica's Succeeded. (Issue 41: a record whose report
// failed while the server was down was once never written, the job
// released uncounting it.)
func TestAPIServerDownAcrossWorkersExits(t *testing.T) {
	const workers = 4
	j := newJob(t, fmt.Sprintf("chief:1:2222,worker:%d:2222", workers), map[string]int32{"chief": 1, "worker": workers})
	names := []string{"chief-0"}
	for i := range workers {
		names = append(names, fmt.Sprintf("worker-%d", i))
	}
	g := newGates(t, names...)
	kc := j.cp.Kubeconfig()
	flags := []string{"--restart-policy", "OnFailure"}
	pods := map[string]*wrapped{}
	var all []string
	for _, r := range names {
		j.pod("j-" + r)
		pods[r] = j.wrap("j-"+r, kc, g.script(r), nil, flags...)
		all = append(all, "j-"+r)
	}
	j.keeper(flags...)
	j.running(0, all...)

	j.cp.StopAPIServer()
	// The fault: how long the API is gone. Long enough for the sidecars'
	// retries to be spread over their longest pause (5 s), so that the
	// chief's exit, reported at once, may well land before some worker's.
	outage := time.After(10 * time.Second)
	g.open("worker-1", 1, 1) // restarted at once: no backoff limit
	g.open("worker-1", 2, 0)
	for _, r := range names[1:] {
		if r != "worker-1" {
			g.open(r, 1, 0)
		}
	}
	// Each worker has ended while the server is down: its sidecar took
	// the exit, and could not write it (nor, for worker-1, its restart).
	for _, r := range names[1:] {
		pods[r].sidecar.out.waitLines(t, "state Succeeded", "report state on pod j-"+r)
	}
	// The last worker's sidecar is slow: its retry waits until the job has
	// ended, so the chief's record is certain to come first.
	slow := pods[fmt.Sprintf("worker-%d", workers-1)].sidecar.cmd.Process
	if err := slow.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	<-outage
	if err := j.cp.StartAPIServer(t.Context()); err != nil {
		t.Fatal(err)
	}

	want := map[string]*record.ReplicaStatus{"Chief": {Succeeded: 1}, "Worker": {Succeeded: workers}}
	everyWorker := fmt.Sprintf("0-%d", workers-1)
	var bad []string
	var atEnd *record.Status // the first status that ended the job
	chiefOpened := false
	// Every status from before the chief's exit on, in order: the chief
	// exits once the wait has listed the status.
	s := j.Within(2*time.Minute).WaitStatus("every type released", func(s *record.Status) bool {
		if !chiefOpened {
			chiefOpened = true
			if s.Ended() {
				bad = append(bad, "the job ended before the chief's exit")
			}
			g.open("chief-0", 1, 0)
		}
		raw, _ := s.Marshal()
		if s.Ended() {
			if atEnd == nil {
				atEnd = s
				if err := slow.Signal(syscall.SIGCONT); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(want, s.ReplicaStatuses); diff != "" || !s.IsTrue(record.JobSucceeded) {
				bad = append(bad, fmt.Sprintf("ended with replicas (-want +got):\n%s in %s", diff, raw))
			}
		}
		// A type goes once its replicas' exits are in; the keeper's own
		// last, once every count is final.
		workersIn := s.Succeeded["worker"].String() == everyWorker && s.Restarts == 1
		for _, typ := range s.Teardown {
			if typ == "chief" && !s.HasSucceeded("chief", 0) || typ != "chief" && !workersIn {
				bad = append(bad, fmt.Sprintf("released %v with succeeded %v, %d restarts (want workers %s and the chief, 1 restart): %s",
					s.Teardown, s.Succeeded, s.Restarts, everyWorker, raw))
				break
			}
		}
		return slices.Contains(s.Teardown, supervise.KeeperType)
	})
	for _, b := range bad {
		t.Error(b)
	}
	if atEnd != nil {
		// The records that came after the chief's (the slow one's at least)
		// were counted before the release.
		t.Logf("as the job ended: workers %q in the succeeded set, %d restarts", atEnd.Succeeded["worker"].String(), atEnd.Restarts)
	}
	if !slices.Contains(s.Teardown, "worker") || !slices.Contains(s.Teardown, "chief") {
		t.Errorf("status %s: want every type released", j.StatusJSON())
	}
	j.released("chief", "worker")
	for _, p := range all {
		r := j.Record(p)
		wantRestarts := int32(0)
		if p == "j-worker-1" {
			wantRestarts = 1
		}
		if r.State != record.StateSucceeded || r.Restarts != wantRestarts {
			t.Errorf("%s's record %+v: want Succeeded after %d restarts", p, r, wantRestarts)
		}
	}
}
