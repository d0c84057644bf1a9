package localrun

import (
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/internal/golden"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

func plan(refs ...string) *Plan {
	p := &Plan{Job: "demo", Policy: &supervise.Job{Name: "demo"}}
	for _, s := range refs {
		ref, _ := supervise.ParseRef(s)
		p.Replicas = append(p.Replicas, Replica{Ref: ref, Address: "localhost:4000", Config: &supervise.Config{Job: p.Policy},
			Command: supervise.Command{Args: []string{"sh", "-c", "echo hi"}}})
	}
	return p
}

// TestPrefixes: every line, also one cut short by the end of the output or
// longer than the buffer, comes out whole under its replica's prefix.
func TestPrefixes(t *testing.T) {
	var b strings.Builder
	pr := newPrinter(&b, false, plan("chief-0", "worker-1"))
	long := strings.Repeat("x", 70<<10)
	pr.copy(1, strings.NewReader("one\n\ntwo\r\nthree"))
	pr.copy(0, strings.NewReader(long+"\n"))
	want := "[worker-1] one\n[worker-1] \n[worker-1] two\r\n[worker-1] three\n" +
		"[chief-0] " + long[:64<<10] + "\n[chief-0] " + long[64<<10:] + "\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

func TestColor(t *testing.T) {
	var b strings.Builder
	pr := newPrinter(&b, true, plan("chief-0", "worker-1"))
	pr.write(1, []byte("hello\n"))
	code := int32(1)
	reporter{pr, 0}.Report(supervise.Report{Replica: record.Replica{State: record.StateFailed, LastExitCode: &code, Reason: "Error"},
		Exit: &supervise.Exit{Code: 1, Reason: "Error"}, Events: []supervise.Event{
			{Type: "Warning", Reason: supervise.ReasonReplicaExited, Note: "replica chief-0 exited with code 1 (Error)"},
			{Type: "Warning", Reason: supervise.ReasonReplicaFailed, Note: "replica chief-0 exited with code 1, which its restart policy Never does not retry"},
		}})
	jobReporter{pr}.Report(supervise.Report{Events: []supervise.Event{
		{Type: "Warning", Reason: supervise.ReasonJobFailed, Note: "replica chief-0 failed with exit code 1 (Error)"},
	}})
	want := "\x1b[33m[worker-1] \x1b[0mhello\n" +
		"\x1b[36m[chief-0] \x1b[0m\x1b[31mtfgen: exited with code 1 (Error): failed (Error)\x1b[0m\n" +
		"\x1b[1m\x1b[31mtfgen: job demo failed: replica chief-0 failed with exit code 1 (Error)\x1b[0m\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

// TestReports: what each report says, without colour.
func TestReports(t *testing.T) {
	var b strings.Builder
	p := plan("worker-0")
	p.Policy.CleanPodPolicy = supervise.CleanNone
	r := reporter{newPrinter(&b, false, p), 0}
	c137, c0, c143 := int32(137), int32(0), int32(143)
	rec := func(st record.State, restarts int32, code *int32, reason string) record.Replica {
		return record.Replica{State: st, Restarts: restarts, LastExitCode: code, Reason: reason}
	}
	r.p.starting(0)
	r.Report(supervise.Report{Replica: rec(record.StateRunning, 0, nil, "Started")})
	r.Report(supervise.Report{Replica: rec(record.StateRestarting, 0, &c137, "Signaled"), Exit: &supervise.Exit{Code: 137, Reason: "Signaled"}, Events: []supervise.Event{
		{Type: "Warning", Reason: supervise.ReasonReplicaExited, Note: "replica worker-0 exited with code 137 (Signaled)"},
		{Type: "Normal", Reason: supervise.ReasonReplicaRestarting, Note: "replica worker-0 restarts after exit code 137 (restart 1)"}}})
	r.Report(supervise.Report{Replica: rec(record.StateRunning, 1, &c137, "Restarted")})
	r.Report(supervise.Report{Replica: rec(record.StateSucceeded, 1, &c0, "Completed"), Exit: &supervise.Exit{Code: 0, Reason: "Completed"}})
	jobReporter{r.p}.Report(supervise.Report{Events: []supervise.Event{
		{Type: "Normal", Reason: supervise.ReasonJobSucceeded, Note: "the job succeeded: replica worker-0 succeeded"},
		{Type: "Normal", Reason: supervise.ReasonTeardown, Note: "stopping replica types ps (clean pod policy Running)"}}})
	stopped := rec(record.StateStopped, 1, &c143, "Terminated")
	stopped.Message = "replica worker-0 stopped (its supervisor was stopped): exited with code 143 (Signaled)"
	r.Report(supervise.Report{Replica: stopped, Exit: &supervise.Exit{Code: 143, Reason: "Signaled"}, Events: []supervise.Event{
		{Type: "Normal", Reason: supervise.ReasonReplicaStopped, Note: stopped.Message}}})
	r.Report(supervise.Report{Replica: rec(record.StateStopped, 1, &c137, "JobEnded"), Events: []supervise.Event{
		{Type: "Normal", Reason: supervise.ReasonReplicaStopped, Note: "replica worker-0 does not restart (the job had ended)"}}})
	want := `[worker-0] tfgen: on localhost:4000: sh -c 'echo hi'
[worker-0] tfgen: exited with code 137 (Signaled): restarting (restart 1)
[worker-0] tfgen: started again (restart 1)
[worker-0] tfgen: exited with code 0 (Completed): succeeded
tfgen: job demo succeeded: replica worker-0 succeeded
tfgen: cleanPodPolicy None: replicas still running are left running, as in a cluster; Ctrl-C stops them
[worker-0] tfgen: stopped (its supervisor was stopped): exited with code 143 (Signaled)
[worker-0] tfgen: does not restart (the job had ended)
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

func TestTable(t *testing.T) {
	s := &Summary{Job: "demo", Status: &record.Status{}, Replicas: []ReplicaResult{
		{Ref: supervise.Ref{Type: "chief", Index: 0}, Result: supervise.Result{ExitCode: 0, Restarts: 2, State: record.StateSucceeded}},
		{Ref: supervise.Ref{Type: "evaluator", Index: 0}, Result: supervise.Result{State: record.StateIdle}},
		{Ref: supervise.Ref{Type: "ps", Index: 0}, Result: supervise.Result{ExitCode: 143, State: record.StateStopped}},
		{Ref: supervise.Ref{Type: "worker", Index: 11}, Result: supervise.Result{ExitCode: 137, Restarts: 12, State: record.StateFailed}},
	}}
	var b strings.Builder
	if err := s.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "testdata/table.golden", []byte(b.String()))
}

func TestQuoteArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"python", "train.py", "--steps=10"}, "python train.py --steps=10"},
		{[]string{"sh", "-c", "echo $TF_CONFIG; exit 0"}, `sh -c 'echo $TF_CONFIG; exit 0'`},
		{[]string{"sh", "-c", "trap 'exit 0' TERM\nsleep 1\n"}, `sh -c 'trap '\''exit 0'\'' TERM …'`},
		{[]string{"sh", "-c", "echo\n"}, `sh -c echo`},
		{[]string{"sh", "-c", strings.Repeat("a", 100)}, "sh -c " + strings.Repeat("a", 65) + "…"},
	} {
		if got := quoteArgs(tc.args); got != tc.want {
			t.Errorf("quoteArgs(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestProgressLabelled: a progress bar drawn with \r keeps its label on
// every redraw; a line another replica or tfgen writes meanwhile ends the
// bar's line first, so that it stays on the screen.
func TestProgressLabelled(t *testing.T) {
	type step struct {
		replica int // -1: a tfgen note about replica 0
		text    string
		kind    pieceKind
	}
	tests := []struct {
		name  string
		steps []step
		want  string
	}{
		{"keras", []step{{0, "Epoch 1/2\n", line}, {0, "\r", carriage}, {0, " 1/3 [>..]", partial}, {0, "\b\b\r", carriage},
			{0, " 3/3 [==]\n", line}},
			"[w0] Epoch 1/2\n[w0] \r[w0]  1/3 [>..]\b\b\r[w0]  3/3 [==]\n"},
		{"another replica's line meanwhile", []step{{0, "\r", carriage}, {0, " 1/3", partial}, {1, "hello\n", line},
			{0, "\b\r", carriage}, {0, " 2/3", partial}, {1, "bye\n", line}},
			"[w0] \r[w0]  1/3\n[w1] hello\n[w0] \b\r[w0]  2/3\n[w1] bye\n"},
		{"a note meanwhile", []step{{0, " 1/3\r", carriage}, {-1, "exited", line}},
			"[w0]  1/3\r\n[w0] tfgen: exited\n"},
		{"a line cut short", []step{{1, "last words", line}, {0, "x\n", line}},
			"[w1] last words\n[w0] x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			pr := newPrinter(&b, false, plan("w-0", "w-1"))
			pr.prefixes = []string{"[w0] ", "[w1] "}
			for _, s := range tt.steps {
				if s.replica < 0 {
					pr.note(0, "", "%s", s.text)
					continue
				}
				pr.piece(s.replica, []byte(s.text), s.kind)
			}
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

// writes sends each write it gets.
type writes chan string

func (w writes) Write(p []byte) (int, error) {
	w <- string(p)
	return len(p), nil
}

// TestProgressLive: each redraw of a progress bar is written as soon as
// the replica writes it, not held until the line ends.
func TestProgressLive(t *testing.T) {
	out := make(writes)
	pr := newPrinter(out, false, plan("worker-0"))
	r, w := io.Pipe()
	done := make(chan struct{})
	go func() {
		pr.copy(0, r)
		close(done)
	}()
	for _, tc := range []struct{ write, want string }{
		{"Epoch 1/1\n", "[worker-0] Epoch 1/1\n"},
		{"\r 1/2 [>.]", "[worker-0] \r"},
		{"", "[worker-0]  1/2 [>.]"},
		{"\b\b\r 2/2 [==]", "\b\b\r"},
		{"", "[worker-0]  2/2 [==]"},
	} {
		if tc.write != "" {
			go func() { _, _ = w.Write([]byte(tc.write)) }()
		}
		if got := <-out; got != tc.want {
			t.Fatalf("after writing %q: output %q, want %q", tc.write, got, tc.want)
		}
	}
	go func() { _, _ = w.Write([]byte("\n")) }()
	if got := <-out; got != "\n" {
		t.Errorf("the line's end: %q", got)
	}
	w.Close()
	<-done
}
