package localrun

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/internal/golden"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

func plan(refs ...string) *Plan {
	p := &Plan{Job: "demo"}
	for _, s := range refs {
		ref, _ := supervise.ParseRef(s)
		p.Replicas = append(p.Replicas, Replica{Ref: ref, Address: "localhost:4000", Config: &supervise.Config{},
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
	reporter{pr, 0}.Report(supervise.Report{State: "Failed", ExitCode: &code, Reason: supervise.ReasonReplicaFailed, Events: []supervise.Event{
		{Type: "Warning", Reason: supervise.ReasonReplicaExited, Note: "replica chief-0 exited with code 1 (Error)"},
		{Type: "Warning", Reason: supervise.ReasonJobFailed, Note: "replica chief-0 exited with code 1, which its restart policy Never does not retry"},
	}})
	want := "\x1b[33m[worker-1] \x1b[0mhello\n" +
		"\x1b[36m[chief-0] \x1b[0m\x1b[31mtfgen: exited with code 1 (Error): failed (ReplicaFailed)\x1b[0m\n" +
		"\x1b[1m\x1b[31mtfgen: job demo failed: replica chief-0 exited with code 1, which its restart policy Never does not retry\x1b[0m\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

// TestReports: what each report says, without colour.
func TestReports(t *testing.T) {
	var b strings.Builder
	p := plan("worker-0")
	p.Replicas[0].Config.CleanPodPolicy = supervise.CleanNone
	r := reporter{newPrinter(&b, false, p), 0}
	c137, c0, c143 := int32(137), int32(0), int32(143)
	r.p.starting(0)
	r.Report(supervise.Report{State: "Running", Reason: "Started"})
	r.Report(supervise.Report{State: "Restarting", Restarts: 1, ExitCode: &c137, Reason: supervise.ReasonReplicaRestarting, Events: []supervise.Event{
		{Type: "Warning", Reason: supervise.ReasonReplicaExited, Note: "replica worker-0 exited with code 137 (Signaled)"},
		{Type: "Normal", Reason: supervise.ReasonReplicaRestarting, Note: "replica worker-0 restarts after exit code 137 (restart 1)"}}})
	r.Report(supervise.Report{State: "Running", Restarts: 1, ExitCode: &c137, Reason: "Restarted"})
	r.Report(supervise.Report{State: "Succeeded", Restarts: 1, ExitCode: &c0, Reason: "Completed", Events: []supervise.Event{
		{Type: "Normal", Reason: supervise.ReasonReplicaExited, Note: "replica worker-0 exited with code 0 (Completed)"},
		{Type: "Normal", Reason: supervise.ReasonJobSucceeded, Note: "the job succeeded: replica worker-0 succeeded"}}})
	r.Report(supervise.Report{State: "Stopped", ExitCode: &c143, Reason: "Terminated", Events: []supervise.Event{
		{Type: "Normal", Reason: supervise.ReasonReplicaStopped, Note: "replica worker-0 stopped from outside (exit code 143)"}}})
	r.Report(supervise.Report{State: "Succeeded", Reason: supervise.ReasonTeardown, Events: []supervise.Event{
		{Type: "Normal", Reason: supervise.ReasonTeardown, Note: "stopping replica types ps (clean pod policy Running)"}}})
	want := `[worker-0] tfgen: on localhost:4000: sh -c 'echo hi'
[worker-0] tfgen: exited with code 137 (Signaled): restarting (restart 1)
[worker-0] tfgen: started again (restart 1)
[worker-0] tfgen: exited with code 0 (Completed): succeeded
tfgen: job demo succeeded: replica worker-0 succeeded
tfgen: cleanPodPolicy None: replicas still running are left running, as in a cluster; Ctrl-C stops them
[worker-0] tfgen: stopped (exit code 143)
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

func TestTable(t *testing.T) {
	s := &Summary{Job: "demo", Status: &record.Status{}, Replicas: []ReplicaResult{
		{Ref: supervise.Ref{Type: "chief", Index: 0}, Result: supervise.Result{ExitCode: 0, Restarts: 2}, State: "Succeeded"},
		{Ref: supervise.Ref{Type: "evaluator", Index: 0}, Result: supervise.Result{Reason: supervise.StateIdle}, State: supervise.StateIdle},
		{Ref: supervise.Ref{Type: "ps", Index: 0}, Result: supervise.Result{ExitCode: 143}, State: "Stopped"},
		{Ref: supervise.Ref{Type: "worker", Index: 11}, Result: supervise.Result{ExitCode: 137, Restarts: 12}, State: "Failed"},
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
