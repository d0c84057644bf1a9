//go:build unix

package localrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// fast restarts, so that retries take no time.
var fast = &supervise.Backoff{Initial: time.Millisecond, Max: time.Millisecond}

// run plans j with o and runs it with real processes.
func run(t *testing.T, ctx context.Context, j *job.Job, o PlanOptions, ro Options) (*Summary, string) {
	t.Helper()
	if o.Backoff == nil {
		o.Backoff = fast
	}
	p, err := NewPlan(j, o)
	if err != nil {
		t.Fatal(err)
	}
	out, ok := ro.Out.(*lines)
	if !ok {
		out = newLines("")
		ro.Out = out
	}
	s, err := Run(ctx, p, ro)
	if err != nil {
		t.Fatal(err)
	}
	return s, out.String()
}

func table(t *testing.T, s *Summary) string {
	t.Helper()
	var b strings.Builder
	if err := s.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func checkTable(t *testing.T, s *Summary, out string, want ...string) {
	t.Helper()
	got := strings.Split(strings.TrimSpace(table(t, s)), "\n")[1:]
	for i := range got {
		got[i] = strings.Join(strings.Fields(got[i]), " ")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("table (-want +got):\n%s\noutput:\n%s", diff, out)
	}
}

// TestSuccessStopsPS: the chief exits 0 once the parameter server is up;
// the job succeeds and the parameter server, which would run for ever, is
// stopped with SIGTERM.
func TestSuccessStopsPS(t *testing.T) {
	dir := fifos(t, "ps-up")
	j := testjob.New("demo").
		Replica(job.Chief, 1, testjob.Shell(`read x < "$DIR/ps-up"; echo "chief saw $x"; exit 0`), dirEnv(dir)).
		Replica(job.PS, 1, testjob.Shell(`trap 'echo TERM > "$DIR/ps-term"; exit 143' TERM; echo up > "$DIR/ps-up"; while :; do sleep 1; done`), dirEnv(dir)).
		Defaulted()
	s, out := run(t, context.Background(), j, PlanOptions{}, Options{})
	checkTable(t, s, out, "chief-0 0 0 Succeeded", "ps-0 143 0 Stopped")
	if s.Err() != nil || s.Interrupted {
		t.Errorf("Err() = %v, interrupted %v", s.Err(), s.Interrupted)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "ps-term")); string(b) != "TERM\n" {
		t.Errorf("the parameter server did not get SIGTERM: %q, %v", b, err)
	}
	for _, want := range []string{"[chief-0] chief saw up\n", "tfgen: job demo succeeded: replica chief-0 succeeded\n",
		"[chief-0] tfgen: exited with code 0 (Completed): succeeded\n", "tfgen: stopping replica types ps (clean pod policy Running)\n",
		"[ps-0] tfgen: the job has ended: SIGTERM to process group", "[ps-0] tfgen: stopped (the job had ended): exited with code 143 (Error)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestChiefFails: the chief exits 1 under Never; the job fails and the
// parameter server is stopped.
func TestChiefFails(t *testing.T) {
	dir := fifos(t, "ps-up")
	j := testjob.New("demo").
		Replica(job.Chief, 1, testjob.RestartPolicy(job.RestartNever), testjob.Shell(`read x < "$DIR/ps-up"; echo "no data" >&2; exit 1`), dirEnv(dir)).
		Replica(job.PS, 1, testjob.RestartPolicy(job.RestartAlways), testjob.Shell(`echo up > "$DIR/ps-up"; exec sleep 600`), dirEnv(dir)).
		Defaulted()
	s, out := run(t, context.Background(), j, PlanOptions{}, Options{})
	checkTable(t, s, out, "chief-0 1 0 Failed", "ps-0 143 0 Stopped")
	want := "job demo failed (ReplicaFailed): replica chief-0 exited with code 1, which its restart policy Never does not retry"
	if err := s.Err(); err == nil || err.Error() != want {
		t.Errorf("Err() = %v, want %s", err, want)
	}
	// The exit is told after the last line the process wrote.
	last, exit := strings.Index(out, "[chief-0] no data\n"), strings.Index(out, "[chief-0] tfgen: exited with code 1 (Error): failed (Error)\n")
	if last < 0 || exit < last {
		t.Errorf("output:\n%s", out)
	}
}

// TestRestarts: restart policies and limits on one-replica jobs; a state
// file tells an attempt from the next.
func TestRestarts(t *testing.T) {
	once := `if [ -e "$DIR/once" ]; then exit 0; fi; : > "$DIR/once"; exit %s`
	for _, tc := range []struct {
		name, script string
		policy       job.RestartPolicy
		max, limit   *int32
		row, err     string
	}{
		{"ExitCode retries 137", strings.Replace(once, "%s", "137", 1), job.RestartExitCode, nil, nil, "chief-0 0 1 Succeeded", ""},
		{"ExitCode does not retry 3", strings.Replace(once, "%s", "3", 1), job.RestartExitCode, nil, nil, "chief-0 3 0 Failed",
			"job demo failed (ReplicaFailed): replica chief-0 exited with code 3, which its restart policy ExitCode does not retry"},
		{"OnFailure up to maxRestarts", "exit 2", job.RestartOnFailure, ptr(int32(2)), nil, "chief-0 2 2 Failed",
			"job demo failed (ReplicaFailed): replica chief-0 exited with code 2 and has used its 2 restarts (MaxRestartsExceeded)"},
		{"backoffLimit", "exit 2", job.RestartOnFailure, nil, ptr(int32(1)), "chief-0 2 1 Failed",
			"job demo failed (BackoffLimitExceeded): replica chief-0 exited with code 2 and the job has used its backoff limit of 1 restarts"},
		{"backoffLimit caps OOM kills under ExitCode", "kill -9 $$$$", job.RestartExitCode, nil, ptr(int32(1)), "chief-0 137 1 Failed",
			"job demo failed (BackoffLimitExceeded): replica chief-0 exited with code 137 and the job has used its backoff limit of 1 restarts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := testjob.New("demo").Replica(job.Chief, 1, testjob.RestartPolicy(tc.policy), testjob.Shell(tc.script), dirEnv(t.TempDir()),
				func(s *job.ReplicaSpec) { s.MaxRestarts = tc.max }).Defaulted()
			j.RunPolicy.BackoffLimit = tc.limit
			s, out := run(t, context.Background(), j, PlanOptions{}, Options{})
			checkTable(t, s, out, tc.row)
			if err := s.Err(); (err == nil && tc.err != "") || (err != nil && err.Error() != tc.err) {
				t.Errorf("Err() = %v, want %q", err, tc.err)
			}
		})
	}
}

// TestGracePeriod: a parameter server that ignores SIGTERM is killed once
// the grace period is over.
func TestGracePeriod(t *testing.T) {
	dir := fifos(t, "ps-up")
	j := testjob.New("demo").
		Replica(job.Chief, 1, testjob.Shell(`read x < "$DIR/ps-up"; exit 0`), dirEnv(dir)).
		Replica(job.PS, 1, testjob.Shell(`trap '' TERM; echo up > "$DIR/ps-up"; exec sleep 600`), dirEnv(dir)).
		Defaulted()
	s, out := run(t, context.Background(), j, PlanOptions{GracePeriod: 50 * time.Millisecond}, Options{})
	checkTable(t, s, out, "chief-0 0 0 Succeeded", "ps-0 137 0 Stopped")
	if !strings.Contains(out, "[ps-0] tfgen: grace period over: SIGKILL to process group") {
		t.Errorf("output:\n%s", out)
	}
}

// TestInterrupt: the first interrupt stops every replica with SIGTERM; the
// run ends interrupted.
func TestInterrupt(t *testing.T) {
	dir := fifos(t, "up-demo-chief-0", "up-demo-ps-0")
	script := `echo up > "$DIR/up-$POD_NAME"; exec sleep 600`
	j := testjob.New("demo").Replica(job.Chief, 1, testjob.Shell(script), dirEnv(dir)).Replica(job.PS, 1, testjob.Shell(script), dirEnv(dir)).Defaulted()
	sigs := make(chan os.Signal, 1)
	go func() {
		await(t, dir, "up-demo-chief-0")
		await(t, dir, "up-demo-ps-0")
		sigs <- syscall.SIGINT
	}()
	s, out := run(t, context.Background(), j, PlanOptions{}, Options{Signals: sigs})
	checkTable(t, s, out, "chief-0 143 0 Stopped", "ps-0 143 0 Stopped")
	if err := s.Err(); !s.Interrupted || err == nil || err.Error() != "job demo interrupted before it ended" {
		t.Errorf("interrupted %v, Err() = %v", s.Interrupted, err)
	}
}

// TestInterruptTwice: replicas that ignore SIGTERM, with an hour's grace,
// are killed by a second interrupt.
func TestInterruptTwice(t *testing.T) {
	dir := fifos(t, "up-demo-chief-0", "up-demo-worker-0")
	script := `trap '' TERM; echo up > "$DIR/up-$POD_NAME"; exec sleep 600`
	j := testjob.New("demo").Replica(job.Chief, 1, testjob.Shell(script), dirEnv(dir)).Replica(job.Worker, 1, testjob.Shell(script), dirEnv(dir)).Defaulted()
	out := newLines("SIGTERM to process group")
	sigs := make(chan os.Signal, 2)
	go func() {
		await(t, dir, "up-demo-chief-0")
		await(t, dir, "up-demo-worker-0")
		sigs <- syscall.SIGTERM
		<-out.seen
		<-out.seen
		sigs <- syscall.SIGINT
	}()
	s, text := run(t, context.Background(), j, PlanOptions{GracePeriod: time.Hour}, Options{Signals: sigs, Out: out})
	checkTable(t, s, text, "chief-0 137 0 Stopped", "worker-0 137 0 Stopped")
	if !s.Interrupted || !strings.Contains(text, "tfgen: killing every replica\n") {
		t.Errorf("interrupted %v; output:\n%s", s.Interrupted, text)
	}
}

// TestCancel: the end of the context stops the run like an interrupt.
func TestCancel(t *testing.T) {
	dir := fifos(t, "up")
	j := testjob.New("demo").Replica(job.Worker, 1, testjob.Shell(`echo up > "$DIR/up"; exec sleep 600`), dirEnv(dir)).Defaulted()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		await(t, dir, "up")
		cancel()
	}()
	s, out := run(t, ctx, j, PlanOptions{}, Options{})
	checkTable(t, s, out, "worker-0 143 0 Stopped")
	if !s.Interrupted {
		t.Error("not interrupted")
	}
}

// deadlineClock stands still at a whole second until a timer of at least
// the job's active deadline is asked for: that one fires at once, moving
// the clock on by its duration. Shorter timers run in real time.
type deadlineClock struct {
	mu       sync.Mutex
	now      time.Time
	deadline time.Duration
}

func (c *deadlineClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *deadlineClock) After(d time.Duration) <-chan time.Time {
	if d < c.deadline {
		return time.After(d)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

// TestDeadline: at the job's active deadline the training process gets
// SIGTERM and the job fails, as in a pod.
func TestDeadline(t *testing.T) {
	j := testjob.New("demo").Replica(job.Chief, 1, testjob.RestartPolicy(job.RestartOnFailure), testjob.Shell("exec sleep 600")).Defaulted()
	j.RunPolicy.ActiveDeadlineSeconds = ptr(int64(3600))
	s, out := run(t, context.Background(), j, PlanOptions{}, Options{Clock: &deadlineClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), deadline: time.Hour}})
	checkTable(t, s, out, "chief-0 143 0 Stopped")
	want := "job demo failed (DeadlineExceeded): the job ran past its active deadline of 1h0m0s"
	if err := s.Err(); err == nil || err.Error() != want {
		t.Errorf("Err() = %v, want %s", err, want)
	}
}
