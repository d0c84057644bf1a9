//go:build unix

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tfgen/tfgen/internal/testjob"
)

// bin is the tfgen binary built for these tests.
var bin string

func TestMain(m *testing.M) {
	execLimited() // when asked to, becomes a limited tfgen
	dir, err := os.MkdirTemp("", "tfgen-test")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "tfgen")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build tfgen: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// job is a TFJob whose chief and parameter server both run script, with
// DIR set to dir. As in a pod, $$ in a command is a literal $.
func job(dir, script string) string {
	grace := int64(3600)
	replica := []testjob.Option{testjob.Image("busybox"), testjob.Shell(script), testjob.Env("DIR", dir),
		testjob.Pod(func(p *corev1.PodSpec) { p.TerminationGracePeriodSeconds = &grace })}
	return testjob.New("local").Replica("Chief", 1, replica...).Replica("PS", 1, replica...).String()
}

// start runs tfgen run on job, with a pipe on its stdout.
func start(t *testing.T, job string) (*exec.Cmd, *bufio.Reader, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(bin, "run", "-f", "-")
	cmd.Stdin = strings.NewReader(job)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, bufio.NewReader(out), &stderr
}

// until reads lines until n of them contain s, and returns what it read.
func until(t *testing.T, r *bufio.Reader, s string, n int) string {
	t.Helper()
	var b strings.Builder
	for n > 0 {
		line, err := r.ReadString('\n')
		b.WriteString(line)
		if err != nil {
			t.Fatalf("output ended waiting for %q: %v\n%s", s, err, b.String())
		}
		if strings.Contains(line, s) {
			n--
		}
	}
	return b.String()
}

// finish waits for tfgen and returns its exit status and the rest of its
// output.
func finish(t *testing.T, cmd *exec.Cmd, r *bufio.Reader) (int, string) {
	t.Helper()
	var b strings.Builder
	_, _ = r.WriteTo(&b)
	err := cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), b.String()
}

// gone checks that the processes whose pids the replicas wrote are gone.
func gone(t *testing.T, dir string) {
	t.Helper()
	for _, name := range []string{"local-chief-0", "local-ps-0"} {
		b, err := os.ReadFile(filepath.Join(dir, name+".pid"))
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 {
			t.Fatalf("%s: pid %q: %v", name, b, err)
		}
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("%s (pid %d) outlived tfgen: %v", name, pid, err)
		}
	}
}

// TestInterrupt: SIGINT stops every replica with SIGTERM, and tfgen exits 1.
func TestInterrupt(t *testing.T) {
	dir := t.TempDir()
	cmd, out, stderr := start(t, job(dir, `echo $$$$ > "$DIR/$POD_NAME.pid"; echo ready; exec sleep 600`))
	until(t, out, "] ready", 2)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code, rest := finish(t, cmd, out)
	if code != 1 || !strings.Contains(rest, "chief-0  143        0         Stopped\nps-0     143        0         Stopped\n") {
		t.Errorf("exit status %d, want 1; output:\n%s", code, rest)
	}
	if got, want := stderr.String(), "tfgen: job local interrupted before it ended\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
	gone(t, dir)
}

// TestInterruptTwice: replicas that ignore SIGTERM, with an hour's grace,
// are killed by a second SIGINT.
func TestInterruptTwice(t *testing.T) {
	dir := t.TempDir()
	cmd, out, _ := start(t, job(dir, `trap '' TERM; echo $$$$ > "$DIR/$POD_NAME.pid"; echo ready; exec sleep 600`))
	until(t, out, "] ready", 2)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	until(t, out, "SIGTERM to process group", 2)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code, rest := finish(t, cmd, out)
	if code != 1 || !strings.Contains(rest, "chief-0  137        0         Stopped\nps-0     137        0         Stopped\n") {
		t.Errorf("exit status %d, want 1; output:\n%s", code, rest)
	}
	gone(t, dir)
}
