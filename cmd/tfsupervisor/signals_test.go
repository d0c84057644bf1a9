package main

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pipe makes a named pipe and opens it for reading and writing, so that
// reads never see EOF between the writes of short-lived writers.
func pipe(t *testing.T) (string, *bufio.Reader) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return p, bufio.NewReader(f)
}

// lines reads n lines, sorted.
func lines(t *testing.T, r *bufio.Reader, n int) []string {
	t.Helper()
	var out []string
	for range n {
		l, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("read: %v (after %q)", err, out)
		}
		out = append(out, strings.TrimSpace(l))
	}
	sort.Strings(out)
	return out
}

const trapping = `exec 2>/dev/null
trap 'echo parent-HUP > "$OUT"' HUP
trap 'echo parent-USR1 > "$OUT"' USR1
trap 'echo parent-TERM > "$OUT"; wait; exit 0' TERM
sh -c 'trap "echo child-HUP > \"\$OUT\"" HUP
trap "echo child-USR1 > \"\$OUT\"" USR1
trap "echo child-TERM > \"\$OUT\"; exit 0" TERM
echo child-ready > "$OUT"; while :; do sleep 0.01; done' &
echo parent-ready > "$OUT"
while :; do wait; done`

// TestSignalForwarding: signals sent to tfsupervisor reach the training
// process and its child (the whole group); SIGTERM ends supervision.
func TestSignalForwarding(t *testing.T) {
	out, r := pipe(t)
	cmd := supervisor([]string{"OUT=" + out, "TFSUPERVISOR_RESTART_POLICY=Always"}, "run", "--", "sh", "-c", trapping)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"child-ready", "parent-ready"}, lines(t, r, 2)); diff != "" {
		t.Fatalf("start (-want +got):\n%s", diff)
	}
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGUSR1, syscall.SIGTERM} {
		cmd.Process.Signal(sig)
		name := strings.TrimPrefix(map[syscall.Signal]string{syscall.SIGHUP: "HUP", syscall.SIGUSR1: "USR1", syscall.SIGTERM: "TERM"}[sig], "")
		if diff := cmp.Diff([]string{"child-" + name, "parent-" + name}, lines(t, r, 2)); diff != "" {
			t.Errorf("after SIG%s (-want +got):\n%s", name, diff)
		}
	}
	if code := exitCode(t, cmd.Wait()); code != 0 {
		t.Errorf("exit code %d, want the child's 0 (and no restart under Always after SIGTERM)", code)
	}
}

// TestGracePeriod: a training process that ignores SIGTERM is killed,
// with its whole group, after the grace period.
func TestGracePeriod(t *testing.T) {
	out, r := pipe(t)
	hold := filepath.Join(t.TempDir(), "hold")
	if err := syscall.Mkfifo(hold, 0o600); err != nil {
		t.Fatal(err)
	}
	script := `trap '' TERM; sleep 600 > "$HOLD" & echo ready > "$OUT"; while :; do sleep 0.01; done`
	cmd := supervisor([]string{"OUT=" + out, "HOLD=" + hold}, "run", "--grace-period", "50ms", "--", "sh", "-c", script)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	held, err := os.Open(hold) // once the grandchild holds it
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	lines(t, r, 1)
	cmd.Process.Signal(syscall.SIGTERM)
	if code := exitCode(t, cmd.Wait()); code != 128+int(syscall.SIGKILL) {
		t.Errorf("exit code %d, want 137", code)
	}
	if _, err := io.ReadAll(held); err != nil { // EOF: the grandchild is gone
		t.Fatal(err)
	}
}

// TestReapsZombiesAsPID1 runs tfsupervisor as PID 1 of a new PID namespace;
// the training process leaves orphans behind, which only PID 1 can reap.
// The training process checks, from inside, that no zombie is left.
func TestReapsZombiesAsPID1(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root for unshare -fp")
	}
	script := `for i in 1 2 3 4 5; do (sleep 0.01 &); (true &); done
n=0
while [ $n -lt 500 ]; do
  z=$(cat /proc/[0-9]*/stat 2>/dev/null | awk '$3 == "Z" && $4 == 1' | wc -l)
  s=$(cat /proc/[0-9]*/stat 2>/dev/null | awk '$2 == "(sleep)"' | wc -l)
  [ "$z" -eq 0 ] && [ "$s" -eq 0 ] && { echo "pid1=$(cat /proc/1/comm) zombies=0"; exit 0; }
  n=$((n+1)); sleep 0.02
done
echo "pid1=$(cat /proc/1/comm) zombies=$z"; exit 1`
	cmd := supervisorAt([]string{"unshare", "-fp", "--mount-proc", bin}, "run", "--", "sh", "-c", script)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "pid1=tfsupervisor zombies=0" {
		t.Errorf("got %q", got)
	}
}

// TestInterruptForwarded: SIGINT stops supervision as SIGTERM does, but
// the training process gets the signal tfsupervisor got (Python turns it
// into KeyboardInterrupt), not SIGTERM.
func TestInterruptForwarded(t *testing.T) {
	out, r := pipe(t)
	script := `trap 'echo INT > "$OUT"; exit 0' INT
trap 'echo TERM > "$OUT"; exit 0' TERM
echo ready > "$OUT"
while :; do sleep 0.01; done`
	cmd := supervisor([]string{"OUT=" + out, "TFSUPERVISOR_RESTART_POLICY=Always"}, "run", "--", "sh", "-c", script)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if got := lines(t, r, 1); got[0] != "ready" {
		t.Fatalf("start: %v", got)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if got := lines(t, r, 1); got[0] != "INT" {
		t.Errorf("the training process got SIG%s, want SIGINT", got[0])
	}
	if code := exitCode(t, cmd.Wait()); code != 0 {
		t.Errorf("exit code %d, want the child's 0", code)
	}
}
