//go:build unix

package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tfgen/tfgen/internal/golden"
	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/job"
)

// These tests run real processes. tfgen run starts a reaper that owns
// Wait4(-1) for the whole test binary: no test in this package may wait
// for a child with os/exec.

// runJob is a TFJob whose chief and parameter server run scripts, with
// DIR set to dir.
func runJob(dir, chief, ps string) string {
	grace := int64(2)
	common := testjob.Options(testjob.Image("busybox"), testjob.Env("DIR", dir),
		testjob.Pod(func(p *corev1.PodSpec) { p.TerminationGracePeriodSeconds = &grace }))
	return testjob.New("local").
		Replica(job.Chief, 1, common, testjob.RestartPolicy(job.RestartExitCode), testjob.Shell(chief)).
		Replica(job.PS, 1, common, testjob.RestartPolicy(job.RestartAlways), testjob.Shell(ps)).
		String()
}

// tfgenRun runs the root command with ctx, from the repository root.
func tfgenRun(t *testing.T, ctx context.Context, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	t.Chdir(repoRoot(t))
	var out, errOut bytes.Buffer
	cmd := NewRootCmd(Streams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut})
	cmd.SetArgs(args)
	code = Report(&errOut, cmd.ExecuteContext(ctx))
	return out.String(), errOut.String(), code
}

// tableOf returns the table that ends tfgen run's output.
func tableOf(out string) string {
	if i := strings.LastIndex(out, "\n\nREPLICA"); i >= 0 {
		return out[i+2:]
	}
	return ""
}

func mkfifo(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunErrors(t *testing.T) {
	runCases(t, []cmdCase{
		{name: "sidecar mode", args: []string{"run", "-f", "examples/tfjob-sidecar.yaml"}, golden: "testdata/run/sidecar.golden", wantErr: true},
		{name: "unknown replica type", args: []string{"run", "-f", "examples/local-demo.yaml", "--replicas", "worker=1,evaluator=1"},
			golden: "testdata/run/unknown-type.golden", wantErr: true},
		{name: "bad --replicas", args: []string{"run", "-f", "examples/local-demo.yaml", "--replicas", "worker"}, golden: "testdata/run/bad-replicas.golden", wantErr: true},
		{name: "bad --color", args: []string{"run", "-f", "examples/local-demo.yaml", "--color", "yes"}, golden: "testdata/run/bad-color.golden", wantErr: true},
		{name: "no input", args: []string{"run"}, golden: "testdata/run/no-input.golden", wantErr: true},
	})
}

// TestRunDemo runs the README's example.
func TestRunDemo(t *testing.T) {
	out, errOut, code := tfgenRun(t, context.Background(), "", "run", "-f", "examples/local-demo.yaml", "--replicas", "Worker=1", "--color", "always")
	if code != 0 {
		t.Fatalf("exit status %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{"chief: done\n", "ps: SIGTERM, shutting down\n", "tfgen: job local-demo succeeded: replica chief-0 succeeded",
		"\nchief-0   0          0         Succeeded\n", "\nps-0      143        0         Stopped\n", "\x1b["} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "worker-1") {
		t.Errorf("--replicas Worker=1 ran worker-1:\n%s", out)
	}
}

// TestRunSucceeds: once the parameter server is up the chief succeeds;
// the parameter server is stopped; exit status 0.
func TestRunSucceeds(t *testing.T) {
	dir := t.TempDir()
	mkfifo(t, dir, "ps-up")
	job := runJob(dir, `read x < "$DIR/ps-up"; exit 0`, `echo up > "$DIR/ps-up"; exec sleep 600`)
	out, errOut, code := tfgenRun(t, context.Background(), job, "run", "-f", "-")
	if code != 0 || errOut != "" {
		t.Fatalf("exit status %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	golden.Assert(t, "testdata/run/ps-stopped.golden.txt", []byte(tableOf(out)))
}

// TestRunFails: the chief exits 1, which ExitCode does not retry: exit
// status 1, and the parameter server is stopped.
func TestRunFails(t *testing.T) {
	dir := t.TempDir()
	mkfifo(t, dir, "ps-up")
	job := runJob(dir, `read x < "$DIR/ps-up"; exit 1`, `echo up > "$DIR/ps-up"; exec sleep 600`)
	out, errOut, code := tfgenRun(t, context.Background(), job, "run", "-f", "-")
	if code != 1 {
		t.Fatalf("exit status %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	golden.Assert(t, "testdata/run/chief-failed.golden.txt", []byte(tableOf(out)))
	golden.Assert(t, "testdata/run/chief-failed.golden.txt.stderr", []byte(errOut))
}

// TestRunInterrupted: the end of the context (main's, on Ctrl-C) stops
// every replica; exit status 1.
func TestRunInterrupted(t *testing.T) {
	dir := t.TempDir()
	mkfifo(t, dir, "up-local-chief-0")
	mkfifo(t, dir, "up-local-ps-0")
	script := `echo up > "$DIR/up-$POD_NAME"; exec sleep 600`
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for _, f := range []string{"up-local-chief-0", "up-local-ps-0"} {
			b, _ := os.ReadFile(filepath.Join(dir, f))
			if string(b) != "up\n" {
				t.Errorf("%s: %q", f, b)
			}
		}
		cancel()
	}()
	out, errOut, code := tfgenRun(t, ctx, runJob(dir, script, script), "run", "-f", "-")
	if code != 1 {
		t.Fatalf("exit status %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	golden.Assert(t, "testdata/run/interrupted.golden.txt", []byte(tableOf(out)))
	golden.Assert(t, "testdata/run/interrupted.golden.txt.stderr", []byte(errOut))
}

// TestRunExcludeEvaluator runs a job whose chief fails when TF_CONFIG's
// cluster lists the evaluator: with --exclude-evaluator it does not, and the
// evaluator runs all the same (the chief waits for it: a job that ended
// before the evaluator started would leave it idle).
func TestRunExcludeEvaluator(t *testing.T) {
	dir := t.TempDir()
	evalJob := testjob.New("eval").CleanPodPolicy(job.CleanNone).
		Replica(job.Chief, 1, testjob.Image("busybox"),
			testjob.Shell(fmt.Sprintf(`case "$TF_CONFIG" in *\"evaluator\":*) echo "cluster lists the evaluator"; exit 1;; esac; while [ ! -e %s/ran ]; do sleep 0.05; done`, dir))).
		Replica(job.Evaluator, 1, testjob.Image("busybox"),
			testjob.Shell(fmt.Sprintf(`case "$TF_CONFIG" in *\"type\":\"evaluator\"*) echo "evaluator ran"; : > %s/ran;; *) exit 1;; esac`, dir))).
		String()
	for _, tc := range []struct {
		args     []string
		wantCode int
		want     string
	}{
		{nil, 1, "[chief-0] cluster lists the evaluator"},
		{[]string{"--exclude-evaluator"}, 0, "[evaluator-0] evaluator ran"},
	} {
		os.Remove(filepath.Join(dir, "ran")) // the evaluator of the run before may have
		out, errOut, code := tfgenRun(t, context.Background(), evalJob, append([]string{"run", "-f", "-", "--color", "never"}, tc.args...)...)
		if code != tc.wantCode || !strings.Contains(out, tc.want) {
			t.Errorf("run %v: exit status %d, want %d; want %q in output:\n%s%s", tc.args, code, tc.wantCode, tc.want, out, errOut)
		}
	}
}
