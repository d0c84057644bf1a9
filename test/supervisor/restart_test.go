package supervisor

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tfgen/tfgen/pkg/record"
)

// TestSupervisorRestartKeepsCounts: a supervisor dies mid-job (its
// container restarts); the next one goes on from the counts on its pod, so
// --max-restarts holds across both.
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
	flags := []string{"--restart-policy", "OnFailure", "--max-restarts", "2"}
	j.keeper(flags...)
	startOne := func() *proc {
		cmd := j.supervisor("j-worker-0", j.cp.Kubeconfig(), append(append([]string{"run"}, flags...), "--", "sh", "-c", script)...)
		cmd.Env = append(cmd.Env, "COUNT="+count, "READY="+ready)
		return start(t, cmd)
	}
	first := startOne()
	pid := readPID(t, ready)
	j.WaitRecords("the restart on the pod", []string{"j-worker-0"}, func(r record.Replica) bool {
		return r.State == record.StateRunning && r.Restarts == 1
	})
	// The container dies: the supervisor and the training process group
	// (the supervisor stopped first, or it would restart the process).
	first.cmd.Process.Signal(syscall.SIGSTOP)
	syscall.Kill(-pid, syscall.SIGKILL)
	first.kill()

	second := startOne()
	s := j.WaitStatus("the job to fail", (*record.Status).Ended)
	if code := second.stop(); code != 1 {
		t.Errorf("exit code %d, want 1\n%s", code, second.out)
	}
	b, _ := os.ReadFile(count)
	if runs := strings.TrimSpace(string(b)); runs != "4" {
		t.Errorf("the training process ran %s times, want 4 (2 restarts in all)", runs)
	}
	if r := j.Record("j-worker-0"); r.Restarts != 2 || r.State != record.StateFailed || r.Reason != "MaxRestartsExceeded" {
		t.Errorf("replica %+v, want Failed after 2 restarts", r)
	}
	if c := s.Condition(record.JobFailed); c == nil || !strings.Contains(c.Message, "MaxRestartsExceeded") {
		t.Errorf("Failed condition %+v", c)
	}
	if s.Restarts != 2 {
		raw, _ := s.Marshal()
		t.Errorf("job restarts %d, want 2; status %s\nfirst:\n%s\nsecond:\n%s", s.Restarts, raw, first.out, second.out)
	}
}
