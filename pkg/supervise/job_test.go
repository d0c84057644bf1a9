package supervise_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// TestBackoffLimitShared runs two workers at once under one keeper: the
// keeper grants exactly backoffLimit restarts between them (a grant the
// job's failure overtakes is counted and not taken up).
func TestBackoffLimitShared(t *testing.T) {
	var fixtures []*fixture
	for i := range 2 {
		cfg := config(supervise.OnFailure)
		cfg.Job.Layout, cfg.Self.Index, cfg.Job.BackoffLimit = layout(), int32(i), ptr[int32](5)
		f := newFixture(t, cfg, true)
		if i > 0 {
			f.store, f.board, f.jobRep = fixtures[0].store, fixtures[0].board, fixtures[0].jobRep
		}
		fixtures = append(fixtures, f)
	}
	stop := fixtures[0].keep(t)
	var wg sync.WaitGroup
	results := make([]supervise.Result, 2)
	for i, f := range fixtures {
		sc := newScript(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = f.supervisor().Run(context.Background(), sc.command("1", "1", "1", "1", "1", "1", "1", "1"))
		}()
	}
	wg.Wait()
	stop()
	s := fixtures[0].status(t)
	if s.Restarts != 5 {
		t.Errorf("job restarts = %d, want 5", s.Restarts)
	}
	if c := s.Condition(record.JobFailed); c == nil || c.Reason != supervise.ReasonBackoffLimitExceeded {
		t.Errorf("Failed condition %+v, want reason BackoffLimitExceeded", c)
	}
	if got := results[0].Restarts + results[1].Restarts; got < 4 || got > 5 {
		t.Errorf("replica restarts sum to %d, want 5, or 4 with a grant not taken up", got)
	}
}

// TestDeadlineFromRecordedStart: a replica whose job started longer ago
// than its active deadline does not train.
func TestDeadlineFromRecordedStart(t *testing.T) {
	cfg := config(supervise.OnFailure)
	cfg.Job.ActiveDeadline = time.Hour
	f := newFixture(t, cfg, true)
	f.keeperClock = f.clock
	started := record.NewTime(f.clock.Now().Add(-2 * time.Hour))
	f.store.Update(context.Background(), func(s *record.Status) error { s.StartTime = &started; return nil })
	sc := newScript(t)
	res := f.run(t, sc.command("0"))
	if res.State != record.StateIdle {
		t.Errorf("Result %+v, want Idle", res)
	}
	if sc.runs() != 0 {
		t.Errorf("the training process ran %d times after the deadline", sc.runs())
	}
}

// startReady starts a child that traps SIGTERM (writing it to out, and
// exiting only when exitOnTerm) and says "ready" on a pipe; it returns
// once the child is ready. The keeper runs beside it.
func startReady(t *testing.T, f *fixture, out string, exitOnTerm bool) <-chan supervise.Result {
	t.Helper()
	ready := fifo(t)
	onTerm := "echo TERM >> \"$OUT\""
	if exitOnTerm {
		onTerm += "; exit 143"
	}
	script := `exec 2>/dev/null; trap '` + onTerm + `' TERM; echo ready > "$READY"; while :; do sleep 0.01; done`
	done := make(chan supervise.Result, 1)
	go func() {
		done <- f.run(t, supervise.Command{Args: []string{"sh", "-c", script}, Env: append(os.Environ(), "READY="+ready, "OUT="+out)})
	}()
	r, err := os.Open(ready)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	readLine(t, r)
	return done
}

func readLine(t *testing.T, r *os.File) string {
	t.Helper()
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return line
}

// TestDeadlineWhileRunning: at the active deadline the keeper fails the
// job, and the running replica's training process is stopped.
func TestDeadlineWhileRunning(t *testing.T) {
	cfg := config(supervise.Always)
	cfg.Job.ActiveDeadline = time.Hour
	f := newFixture(t, cfg, false)
	f.keeperClock = f.clock
	done := startReady(t, f, t.TempDir()+"/signals", true)
	if d := <-f.clock.created; d != time.Hour {
		t.Fatalf("first timer %v, want the deadline", d)
	}
	f.clock.Advance(time.Hour)
	res := <-done
	if diff := cmp.Diff(supervise.Result{ExitCode: 143, State: record.StateStopped, Reason: "JobEnded"}, res); diff != "" {
		t.Errorf("Result (-want +got):\n%s", diff)
	}
	s := f.status(t)
	if c := s.Condition(record.JobFailed); c == nil || c.Reason != supervise.ReasonDeadlineExceeded {
		t.Errorf("Failed condition %+v", c)
	}
	if diff := cmp.Diff([]string{"worker"}, s.Stop); diff != "" {
		t.Errorf("types stopped (-want +got):\n%s", diff)
	}
}

func TestStopSignal(t *testing.T) {
	f := newFixture(t, config(supervise.Always), false)
	out := t.TempDir() + "/signals"
	done := startReady(t, f, out, true)
	f.signals <- syscall.SIGTERM
	res := <-done
	if diff := cmp.Diff(supervise.Result{ExitCode: 143, State: record.StateStopped, Reason: "Terminated"}, res); diff != "" {
		t.Errorf("Result (-want +got): want Stopped, no restart\n%s", diff)
	}
	if b, _ := os.ReadFile(out); string(b) != "TERM\n" {
		t.Errorf("the child saw %q, want TERM", b)
	}
	if s := f.status(t); s.Ended() {
		t.Errorf("status %+v: want the job running", s)
	}
	if e := f.replica(t); e.State != record.StateStopped {
		t.Errorf("the replica's record %+v, want Stopped", e)
	}
}

func TestGracePeriodThenKill(t *testing.T) {
	cfg := config(supervise.Always)
	cfg.GracePeriod = 7 * time.Second
	f := newFixture(t, cfg, false)
	out := fifo(t)
	done := startReady(t, f, out, false)
	f.signals <- syscall.SIGTERM
	r, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if line := readLine(t, r); line != "TERM\n" {
		t.Fatalf("the child saw %q, want TERM", line)
	}
	if d := <-f.clock.created; d != 7*time.Second {
		t.Fatalf("timer %v, want the grace period", d)
	}
	f.clock.Advance(7 * time.Second)
	if res := <-done; res.ExitCode != 128+int(syscall.SIGKILL) {
		t.Errorf("exit code %d, want 137: the child ignores SIGTERM", res.ExitCode)
	}
}

func TestIdleWhenDone(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		setup func(*record.Status)
		prev  *record.Replica
	}{
		{name: "job ended", setup: func(s *record.Status) { s.Finish(true, "JobSucceeded", "", now) }},
		{name: "replica succeeded in an earlier pod", setup: func(s *record.Status) { s.AddSucceeded("worker", 1) }},
		{name: "replica succeeded in this pod", setup: func(*record.Status) {}, prev: &record.Replica{State: record.StateSucceeded, Restarts: 2}},
		{name: "replica failed in this pod", setup: func(*record.Status) {}, prev: &record.Replica{State: record.StateFailed}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config(supervise.Always)
			cfg.Job.Layout, cfg.Self.Index = layout(), 1
			f := newFixture(t, cfg, true)
			f.store.Update(context.Background(), func(s *record.Status) error { tc.setup(s); return nil })
			before := f.status(t)
			sc := newScript(t)
			sup := f.supervisor()
			sup.Previous = tc.prev
			res := sup.Run(context.Background(), sc.command("0"))
			if res.State != record.StateIdle || res.ExitCode != 0 {
				t.Errorf("Result %+v, want Idle, exit code 0", res)
			}
			if sc.runs() != 0 {
				t.Errorf("finished work ran again")
			}
			if diff := cmp.Diff(before, f.status(t)); diff != "" {
				t.Errorf("a replica changed the job's record (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"ReplicaIdle"}, f.rep.events()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLingerIdles: in a pod, the supervisor of a replica that is done
// stays until it is stopped.
func TestLingerIdles(t *testing.T) {
	cfg := config(supervise.Never)
	f := newFixture(t, cfg, true)
	stop := f.keep(t)
	sup := f.supervisor()
	sup.Linger = true
	done := make(chan supervise.Result, 1)
	sc := newScript(t)
	go func() { done <- sup.Run(context.Background(), sc.command("0")) }()
	waitStatus(t, f.store, "the job to succeed", func(s *record.Status) bool { return s.IsTrue(record.JobSucceeded) })
	select {
	case res := <-done:
		t.Fatalf("the supervisor returned %+v before it was stopped", res)
	default:
	}
	f.signals <- syscall.SIGTERM
	if res := <-done; res.State != record.StateSucceeded || sc.runs() != 1 {
		t.Errorf("Result %+v after %d runs, want Succeeded after 1", res, sc.runs())
	}
	stop()
}

// waitStatus follows store until cond holds.
func waitStatus(t *testing.T, store record.Store, what string, cond func(*record.Status) bool) *record.Status {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for s := range store.Watch(ctx) {
		if cond(s) {
			return s
		}
	}
	t.Fatalf("waiting for %s: gave up", what)
	return nil
}

// TestTeardownOnJobEnd: the chief succeeds, the other replicas never
// ran: under cleanPodPolicy Running and All every StatefulSet goes to
// zero, the keeper's own last; under None none does.
func TestTeardownOnJobEnd(t *testing.T) {
	for _, tc := range []struct {
		policy supervise.CleanPodPolicy
		want   []string
	}{
		{supervise.CleanRunning, []string{"chief to 0", "ps to 0", "worker to 0", "keeper to 0"}},
		{supervise.CleanAll, []string{"chief to 0", "ps to 0", "worker to 0", "keeper to 0"}},
		{supervise.CleanNone, nil},
	} {
		t.Run(string(tc.policy), func(t *testing.T) {
			cfg := config(supervise.OnFailure)
			cfg.Job.Layout, cfg.Self, cfg.Job.CleanPodPolicy = layout(), supervise.Ref{Type: "chief"}, tc.policy
			f := newFixture(t, cfg, true)
			res := f.run(t, newScript(t).command("0"))
			if res.ExitCode != 0 || !f.status(t).IsTrue(record.JobSucceeded) {
				t.Fatalf("Result %+v, status %+v: want the job succeeded", res, f.status(t))
			}
			if diff := cmp.Diff(tc.want, f.sc.scaledTo()); diff != "" {
				t.Errorf("scaled (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTTLAfterFinished: under cleanPodPolicy None, the keeper releases
// every replica type once the TTL after finishing has passed, counted
// from the job's completion (a keeper that starts late waits only what
// is left), its own StatefulSet last.
func TestTTLAfterFinished(t *testing.T) {
	j := newJob(t, "chief:1:1,ps:1:1,worker:2:1", func(c *supervise.Job) {
		c.CleanPodPolicy, c.TTLAfterFinished = supervise.CleanNone, ptr(10*time.Minute)
	})
	clock := newClock(false)
	j.store.Update(context.Background(), func(s *record.Status) error {
		s.Finish(true, supervise.ReasonJobSucceeded, "", clock.Now().Add(-4*time.Minute))
		return nil
	})
	j.set("chief-0", record.StateSucceeded, 0, 0)
	j.set("ps-0", record.StateRunning, 0)
	k := j.keeper(-1)
	k.Clock = clock
	j.stop = runKeeper(t, k)
	for d := range clock.created {
		if d == 6*time.Minute {
			break
		}
		if d > 6*time.Minute {
			t.Fatalf("timer %v, want what is left of the TTL (6m)", d)
		}
	}
	if got := j.sc.scaledTo(); len(got) > 0 {
		t.Fatalf("scaled %q before the TTL", got)
	}
	clock.Advance(6 * time.Minute)
	j.sc.await(t, "chief to 0", "ps to 0", "worker to 0", "keeper to 0")
	s := j.wait("every type released", func(s *record.Status) bool { return len(s.Teardown) == 4 })
	if diff := cmp.Diff([]string{"TTLExpired"}, j.events.events()); diff != "" || len(s.Stop) != 0 {
		t.Errorf("events (-want +got):\n%s\nstop %v, want none under None", diff, s.Stop)
	}
}

// exitedProcess is a training process that has exited by itself, its exit
// not delivered yet (its output still draining, say): signals to it are
// moot, and each is announced on signalled.
type exitedProcess struct {
	done      chan struct{}
	exit      supervise.Exit
	signalled chan os.Signal
}

func (p *exitedProcess) Pid() int              { return 1 << 30 }
func (p *exitedProcess) Done() <-chan struct{} { return p.done }
func (p *exitedProcess) Exit() supervise.Exit  { return p.exit }
func (p *exitedProcess) Kill() error           { return p.Signal(syscall.SIGKILL) }
func (p *exitedProcess) Signal(sig os.Signal) error {
	p.signalled <- sig
	return os.ErrProcessDone
}

// racingProcess is a training process that is about to exit 0 when the
// job ends: the SIGTERM reaches it, and it exits 0 all the same.
type racingProcess struct{ exitedProcess }

func (p *racingProcess) Signal(sig os.Signal) error {
	p.signalled <- sig
	return nil
}

// oneRunner starts p, and closes started.
type oneRunner struct {
	p       supervise.Process
	started chan struct{}
}

func (r oneRunner) Start(supervise.Command) (supervise.Process, error) {
	close(r.started)
	return r.p, nil
}

// TestExitAsTheJobEnds: a worker's process exits just as the job ends,
// by itself (the stop comes too late to matter) or after the SIGTERM
// reached it: an exit 0 is a success, another code a failure, unless the
// SIGTERM killed it (Stopped).
func TestExitAsTheJobEnds(t *testing.T) {
	for _, tc := range []struct {
		exit   supervise.Exit
		racing bool // the SIGTERM reached it
		want   record.State
	}{
		{supervise.Exit{Code: 0, Reason: "Completed"}, false, record.StateSucceeded},
		{supervise.Exit{Code: 1, Reason: "Error"}, false, record.StateFailed},
		{supervise.Exit{Code: 0, Reason: "Completed"}, true, record.StateSucceeded},
		{supervise.Exit{Code: 143, Signal: 15, Reason: "Signaled"}, true, record.StateStopped},
	} {
		t.Run(fmt.Sprintf("%s,signalled=%v", tc.want, tc.racing), func(t *testing.T) {
			cfg := config(supervise.OnFailure)
			cfg.Job.Layout, cfg.Self = layout(), supervise.Ref{Type: "worker", Index: 1}
			f := newFixture(t, cfg, true)
			p := &exitedProcess{done: make(chan struct{}), exit: tc.exit, signalled: make(chan os.Signal, 1)}
			var proc supervise.Process = p
			if tc.racing {
				proc = &racingProcess{*p}
			}
			started := make(chan struct{})
			sup := f.supervisor()
			sup.Runner = oneRunner{proc, started}
			done := make(chan supervise.Result, 1)
			go func() { done <- sup.Run(context.Background(), supervise.Command{Args: []string{"train"}}) }()
			<-started
			f.store.Update(context.Background(), func(s *record.Status) error {
				s.Finish(true, supervise.ReasonJobSucceeded, "replica chief-0 succeeded", f.clock.Now())
				s.Stop = []string{"ps", "worker"}
				return nil
			})
			if sig := <-p.signalled; sig != syscall.SIGTERM {
				t.Fatalf("signal %v, want SIGTERM", sig)
			}
			close(p.done)
			res := <-done
			if rec := f.replica(t); rec.State != tc.want {
				t.Errorf("record %+v, want %s", rec, tc.want)
			}
			wantReason := tc.exit.Reason
			if tc.want == record.StateStopped {
				wantReason = supervise.ReasonJobEnded
			}
			if res.State != tc.want || res.ExitCode != tc.exit.Code || res.Reason != wantReason {
				t.Errorf("Result %+v, want %s with exit code %d", res, tc.want, tc.exit.Code)
			}
		})
	}
}
