//go:build unix

package proc_test

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

	"github.com/tfgen/tfgen/pkg/supervise"
	"github.com/tfgen/tfgen/pkg/supervise/proc"
)

// No exec.Cmd in this package's tests: the reaper owns Wait4(-1).
var runner = proc.NewRunner(nil)

func run(t *testing.T, env []string, args ...string) supervise.Process {
	t.Helper()
	p, err := runner.Start(supervise.Command{Args: args, Env: append(os.Environ(), env...)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		script string
		want   supervise.Exit
	}{
		{"exit 0", supervise.Exit{Code: 0, Reason: "Completed"}},
		{"exit 3", supervise.Exit{Code: 3, Reason: "Error"}},
		{"exit 255", supervise.Exit{Code: 255, Reason: "Error"}},
		{"kill -KILL $$", supervise.Exit{Code: 137, Signal: 9, Reason: "Signaled", Message: "killed"}},
		{"kill -TERM $$", supervise.Exit{Code: 143, Signal: 15, Reason: "Signaled", Message: "terminated"}},
	} {
		p := run(t, nil, "sh", "-c", tc.script)
		<-p.Done()
		if diff := cmp.Diff(tc.want, p.Exit()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.script, diff)
		}
	}
}

func TestStartErrors(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, []byte("echo hi\n"), 0o644)
	noShebang := filepath.Join(dir, "garbage")
	os.WriteFile(noShebang, []byte{0x7f, 'E', 'L', 'F', 0, 0}, 0o755)
	for _, tc := range []struct {
		path string
		code int
	}{{"tfgen-no-such-command", 127}, {filepath.Join(dir, "nope"), 127}, {plain, 126}, {noShebang, 126}, {dir, 126}} {
		_, err := runner.Start(supervise.Command{Args: []string{tc.path}})
		se, ok := err.(*supervise.StartError)
		if !ok || se.Code != tc.code {
			t.Errorf("Start(%s) = %v, want a StartError with code %d", tc.path, err, tc.code)
		}
	}
}

func fifo(t *testing.T, name string) string {
	p := filepath.Join(t.TempDir(), name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSignalGroup: a signal reaches the child and its own child.
func TestSignalGroup(t *testing.T) {
	ready, out := fifo(t, "ready"), filepath.Join(t.TempDir(), "out")
	script := `exec 2>/dev/null
trap 'echo parent-$SIG >> "$OUT"' USR1
sh -c 'trap "echo child-$SIG >> \"$OUT\"; exit" USR1; echo ready > "$READY"; while :; do sleep 0.01; done' &
wait; wait`
	p := run(t, []string{"READY=" + ready, "OUT=" + out, "SIG=USR1"}, "sh", "-c", script)
	r, err := os.Open(ready)
	if err != nil {
		t.Fatal(err)
	}
	bufio.NewReader(r).ReadString('\n')
	r.Close()
	if err := p.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	b, _ := os.ReadFile(out)
	got := strings.Fields(string(b))
	sort.Strings(got)
	if diff := cmp.Diff([]string{"child-USR1", "parent-USR1"}, got); diff != "" {
		t.Errorf("signals seen (-want +got):\n%s", diff)
	}
}

// TestLeftoversKilled: when the process exits, the rest of its group goes
// too. The grandchild holds a pipe open; EOF means it is gone. The process
// exits only once the grandchild holds the pipe.
func TestLeftoversKilled(t *testing.T) {
	hold, release := fifo(t, "hold"), fifo(t, "release")
	p := run(t, []string{"HOLD=" + hold, "RELEASE=" + release}, "sh", "-c", `sleep 600 > "$HOLD" & read x < "$RELEASE"; exit 0`)
	r, err := os.Open(hold) // returns once the grandchild opened it
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := os.OpenFile(release, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteString("go\n")
	w.Close()
	<-p.Done()
	if _, err := io.ReadAll(r); err != nil {
		t.Fatal(err)
	}
}

// TestStdio: the process writes to the files its Command gives, and reads
// from its stdin.
func TestStdio(t *testing.T) {
	in, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p, err := runner.Start(supervise.Command{Args: []string{"sh", "-c", "echo out; echo err >&2; cat"}, Env: os.Environ(),
		Stdin: in, Stdout: w, Stderr: w})
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	if diff := cmp.Diff("out\nerr\n", string(got)); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}
