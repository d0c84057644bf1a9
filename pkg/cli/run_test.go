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

	"github.com/tfgen/tfgen/internal/golden"
)

// These tests run real processes. tfgen run starts a reaper that owns
// Wait4(-1) for the whole test binary: no test in this package may wait
// for a child with os/exec.

// runJob is a TFJob whose chief and parameter server run scripts, with
// DIR set to dir.
func runJob(dir, chief, ps string) string {
	spec := func(typ, policy, script string) string {
		return fmt.Sprintf(`    %s:
      restartPolicy: %s
      template:
        spec:
          terminationGracePeriodSeconds: 2
          containers:
            - name: tensorflow
              image: busybox
              command: ["sh", "-c", %q]
              env: [{name: DIR, value: %q}]
`, typ, policy, script, dir)
	}
	return "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata:\n  name: local\nspec:\n  tfReplicaSpecs:\n" +
		spec("Chief", "ExitCode", chief) + spec("PS", "Always", ps)
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
	job := fmt.Sprintf(`apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: eval}
spec:
  runPolicy: {cleanPodPolicy: None}
  tfReplicaSpecs:
    Chief:
      template:
        spec:
          containers:
            - name: tensorflow
              image: busybox
              command: ["sh", "-c", 'case "$TF_CONFIG" in *\"evaluator\":*) echo "cluster lists the evaluator"; exit 1;; esac; while [ ! -e %[1]s/ran ]; do sleep 0.05; done']
    Evaluator:
      template:
        spec:
          containers:
            - name: tensorflow
              image: busybox
              command: ["sh", "-c", 'case "$TF_CONFIG" in *\"type\":\"evaluator\"*) echo "evaluator ran"; : > %[1]s/ran;; *) exit 1;; esac']
`, dir)
	for _, tc := range []struct {
		args     []string
		wantCode int
		want     string
	}{
		{nil, 1, "[chief-0] cluster lists the evaluator"},
		{[]string{"--exclude-evaluator"}, 0, "[evaluator-0] evaluator ran"},
	} {
		os.Remove(filepath.Join(dir, "ran")) // the evaluator of the run before may have
		out, errOut, code := tfgenRun(t, context.Background(), job, append([]string{"run", "-f", "-", "--color", "never"}, tc.args...)...)
		if code != tc.wantCode || !strings.Contains(out, tc.want) {
			t.Errorf("run %v: exit status %d, want %d; want %q in output:\n%s%s", tc.args, code, tc.wantCode, tc.want, out, errOut)
		}
	}
}
