package supervise_test

import (
	"bufio"
	"context"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// TestBackoffLimitShared runs two workers at once on one record: together
// they get exactly backoffLimit restarts.
func TestBackoffLimitShared(t *testing.T) {
	store := &record.Memory{}
	var wg sync.WaitGroup
	results := make([]supervise.Result, 2)
	for i := range 2 {
		cfg := config(supervise.OnFailure)
		cfg.Layout, cfg.Self.Index, cfg.BackoffLimit = layout(), int32(i), ptr[int32](5)
		f := newFixture(t, cfg, true)
		f.store = store
		sc := newScript(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = f.supervisor().Run(context.Background(), sc.command("1", "1", "1", "1", "1", "1", "1", "1"))
		}()
	}
	wg.Wait()
	s, _ := store.Get(context.Background())
	if s.Restarts != 5 {
		t.Errorf("job restarts = %d, want 5", s.Restarts)
	}
	if c := s.Condition(record.JobFailed); c == nil || c.Reason != supervise.ReasonBackoffLimitExceeded {
		t.Errorf("Failed condition %+v, want reason BackoffLimitExceeded", c)
	}
	if got := s.Lookup("worker", 0).Restarts + s.Lookup("worker", 1).Restarts; got != 5 {
		t.Errorf("replica restarts sum to %d, want 5", got)
	}
}

func TestDeadlineFromRecordedStart(t *testing.T) {
	cfg := config(supervise.OnFailure)
	cfg.ActiveDeadline = time.Hour
	f := newFixture(t, cfg, true)
	started := record.NewTime(f.clock.Now().Add(-2 * time.Hour))
	f.store.Update(context.Background(), func(s *record.Status) error { s.StartTime = &started; return nil })
	sc := newScript(t)
	res := f.supervisor().Run(context.Background(), sc.command("0"))
	if res.Reason != supervise.ReasonDeadlineExceeded || res.ExitCode != 1 {
		t.Errorf("Result %+v, want DeadlineExceeded, exit 1", res)
	}
	if sc.runs() != 0 {
		t.Errorf("the training process ran %d times after the deadline", sc.runs())
	}
	if c := f.status(t).Condition(record.JobFailed); c == nil || c.Reason != supervise.ReasonDeadlineExceeded {
		t.Errorf("Failed condition %+v", c)
	}
}

// startReady starts a child that traps SIGTERM (writing it to out, and
// exiting only when exitOnTerm) and says "ready" on a pipe; it returns
// once the child is ready.
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
		done <- f.supervisor().Run(context.Background(), supervise.Command{Args: []string{"sh", "-c", script},
			Env: append(os.Environ(), "READY="+ready, "OUT="+out)})
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

func TestDeadlineWhileRunning(t *testing.T) {
	cfg := config(supervise.Always)
	cfg.ActiveDeadline = time.Hour
	f := newFixture(t, cfg, false)
	done := startReady(t, f, t.TempDir()+"/signals", true)
	if d := <-f.clock.created; d != time.Hour {
		t.Fatalf("first timer %v, want the deadline", d)
	}
	f.clock.Advance(time.Hour)
	res := <-done
	if res.Reason != supervise.ReasonDeadlineExceeded || res.ExitCode != 143 {
		t.Errorf("Result %+v, want DeadlineExceeded with exit 143", res)
	}
	if c := f.status(t).Condition(record.JobFailed); c == nil || c.Reason != supervise.ReasonDeadlineExceeded {
		t.Errorf("Failed condition %+v", c)
	}
}

func TestStopSignal(t *testing.T) {
	f := newFixture(t, config(supervise.Always), false)
	out := t.TempDir() + "/signals"
	done := startReady(t, f, out, true)
	f.signals <- syscall.SIGTERM
	res := <-done
	if res.ExitCode != 143 || res.Reason != string(record.StateStopped) {
		t.Errorf("Result %+v, want exit 143, Stopped (no restart)", res)
	}
	if b, _ := os.ReadFile(out); string(b) != "TERM\n" {
		t.Errorf("the child saw %q, want TERM", b)
	}
	if s := f.status(t); s.Ended() || s.Lookup("worker", 0).State != record.StateStopped {
		t.Errorf("status %+v: want the job running and the replica Stopped", s)
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
	}{
		{"job ended", func(s *record.Status) { s.Finish(true, "JobSucceeded", "", now) }},
		{"replica succeeded", func(s *record.Status) { s.Replica("worker", 1).State = record.StateSucceeded }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config(supervise.Always)
			cfg.Layout, cfg.Self.Index = layout(), 1
			f := newFixture(t, cfg, true)
			f.store.Update(context.Background(), func(s *record.Status) error { tc.setup(s); return nil })
			before := f.status(t)
			f.signals <- syscall.SIGTERM
			sc := newScript(t)
			res := f.supervisor().Run(context.Background(), sc.command("0"))
			if diff := cmp.Diff(supervise.Result{Reason: "Idle"}, res); diff != "" {
				t.Errorf("Result (-want +got):\n%s", diff)
			}
			if sc.runs() != 0 {
				t.Errorf("finished work ran again")
			}
			if diff := cmp.Diff(before, f.status(t)); diff != "" {
				t.Errorf("an idle replica changed the record (-before +after):\n%s", diff)
			}
		})
	}
}

func TestTeardownOnJobEnd(t *testing.T) {
	for _, tc := range []struct {
		policy supervise.CleanPodPolicy
		want   [][]string
	}{
		{supervise.CleanRunning, [][]string{{"ps", "worker"}}},
		{supervise.CleanAll, [][]string{{"ps", "worker", "chief"}}},
		{supervise.CleanNone, nil},
	} {
		t.Run(string(tc.policy), func(t *testing.T) {
			cfg := config(supervise.OnFailure)
			cfg.Layout, cfg.Self, cfg.CleanPodPolicy = layout(), supervise.Ref{Type: "chief"}, tc.policy
			f := newFixture(t, cfg, true)
			res := f.supervisor().Run(context.Background(), newScript(t).command("0"))
			if res.ExitCode != 0 || !f.status(t).IsTrue(record.JobSucceeded) {
				t.Fatalf("Result %+v, status %+v: want the job succeeded", res, f.status(t))
			}
			if diff := cmp.Diff(tc.want, f.td.calls); diff != "" {
				t.Errorf("teardown (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTTLAfterFinished(t *testing.T) {
	cfg := config(supervise.Never)
	cfg.Layout, cfg.Self, cfg.CleanPodPolicy = layout(), supervise.Ref{Type: "ps"}, supervise.CleanNone
	cfg.TTLAfterFinished = ptr(10 * time.Minute)
	f := newFixture(t, cfg, false)
	f.td.stopped = make(chan []string, 1)
	f.store.Update(context.Background(), func(s *record.Status) error {
		s.Finish(true, "JobSucceeded", "", f.clock.Now().Add(-4*time.Minute))
		return nil
	})
	done := make(chan supervise.Result, 1)
	go func() { done <- f.supervisor().Run(context.Background(), newScript(t).command("0")) }()
	if d := <-f.clock.created; d != 6*time.Minute {
		t.Fatalf("timer %v, want what is left of the TTL (6m)", d)
	}
	f.clock.Advance(6 * time.Minute)
	if diff := cmp.Diff([]string{"chief", "worker", "ps"}, <-f.td.stopped); diff != "" {
		t.Errorf("stopped after the TTL (-want +got):\n%s", diff)
	}
	f.signals <- syscall.SIGTERM
	if res := <-done; res.Reason != "Idle" || res.ExitCode != 0 {
		t.Errorf("Result %+v", res)
	}
}
