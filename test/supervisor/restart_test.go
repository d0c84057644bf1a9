package supervisor

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/tfgen/tfgen/pkg/record"
)

// TestSupervisorRestartKeepsCounts: a supervisor dies mid-job (its
// container restarts); the next one goes on from the counts in the record,
// so --max-restarts holds across both.
func TestSupervisorRestartKeepsCounts(t *testing.T) {
	j := newJob(t, "worker:1:2222", map[string]int32{"worker": 1})
	j.pod("j-worker-0")
	dir := t.TempDir()
	count, ready := filepath.Join(dir, "count"), filepath.Join(dir, "ready")
	if err := syscall.Mkfifo(ready, 0o600); err != nil {
		t.Fatal(err)
	}
	script := `n=$(cat "$COUNT" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$COUNT"
if [ $n -eq 2 ]; then echo $$ > "$READY"; while :; do sleep 1; done; fi
exit 1`
	start := func() (*lockedBuffer, *exec.Cmd) {
		cmd := j.supervisor("j-worker-0", j.cp.Kubeconfig(), "run", "--restart-policy", "OnFailure", "--max-restarts", "2", "--", "sh", "-c", script)
		cmd.Env = append(cmd.Env, "COUNT="+count, "READY="+ready)
		out := newLockedBuffer()
		cmd.Stderr = out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return out, cmd
	}
	_, first := start()
	f, err := os.Open(ready)
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(f).ReadString('\n')
	f.Close()
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("pid %q: %v", line, err)
	}
	if s := j.status(); s.Lookup("worker", 0).Restarts != 1 {
		t.Fatalf("before the crash: %+v", s.Lookup("worker", 0))
	}
	// The container dies: the supervisor and the training process group.
	syscall.Kill(-pid, syscall.SIGKILL)
	first.Process.Kill()
	first.Wait()

	out, second := start()
	second.Wait()
	if code := second.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit code %d, want 1\n%s", code, out)
	}
	b, _ := os.ReadFile(count)
	if runs := strings.TrimSpace(string(b)); runs != "4" {
		t.Errorf("the training process ran %s times, want 4 (2 restarts in all)", runs)
	}
	s := j.status()
	if e := s.Lookup("worker", 0); e.Restarts != 2 || e.State != record.StateFailed {
		t.Errorf("replica %+v, want Failed after 2 restarts", e)
	}
	if c := s.Condition(record.JobFailed); c == nil || !strings.Contains(c.Message, "MaxRestartsExceeded") {
		t.Errorf("Failed condition %+v", c)
	}
}
