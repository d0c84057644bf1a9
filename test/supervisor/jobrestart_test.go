package supervisor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tfgen/tfgen/pkg/record"
)

// jobRestart runs n workers under restart scope Job, each a real
// tfsupervisor on a pod of its own; once all train, worker-1's training
// process fails (143) and every worker's restarts in place. It returns the
// time from that failure to every training process running again, after
// checking that the job counted one restart, that each process ran twice
// and that no pod was deleted.
func jobRestart(tb testing.TB, n int) time.Duration {
	l := newLarge(tb, fmt.Sprintf("worker:%d:2222", n), map[string]int32{"worker": int32(n)})
	ready := l.fifo("ready")
	gate := l.fifo("go")
	// Shell builtins only, but for the one exec of sleep: the figure is
	// the supervisors', not that of forking on two cores.
	script := `n=1; if [ -e "$DIR/$POD_NAME" ]; then n=2; fi; echo run >> "$DIR/$POD_NAME"
echo "$POD_NAME $n" > "$READY"
if [ "$POD_NAME.$n" = j-worker-1.1 ]; then read x < "$GO"; exit 143; fi
exec sleep 600`
	flags := []string{"--restart-scope", "Job", "--restart-policy", "ExitCode", "--backoff-limit", "3"}
	l.keeper(flags...)
	for _, pod := range l.pods("worker", n) {
		l.start(pod, script, flags...)
	}
	l.awaitLines(ready, n, "workers running")
	began := time.Now()
	fmt.Fprintln(gate, "go")
	l.awaitLines(ready, n, "workers running again")
	took := time.Since(began)
	s := l.WaitStatus("the job restart in the status", func(s *record.Status) bool { return s.RestartGeneration > 0 })
	if s.RestartGeneration != 1 || s.Restarts != 1 || s.Ended() {
		raw, _ := s.Marshal()
		tb.Errorf("status %s: want one job restart, the job running", raw)
	}
	for _, pod := range l.pods("worker", n) {
		if b, _ := os.ReadFile(filepath.Join(l.dir, pod)); strings.Count(string(b), "run") != 2 {
			tb.Errorf("%s's training process ran %q times, want 2", pod, b)
		}
	}
	l.noPodDeleted(n)
	l.stopAll()
	return took
}

// TestJobRestartOnTheAPI: three workers under restart scope Job, one of
// which fails: every training process restarts in place, counted once.
func TestJobRestartOnTheAPI(t *testing.T) {
	jobRestart(t, 3)
}

// BenchmarkJobRestart measures, on the loopback API server, the time from
// a failing exit to every training process running again under restart
// scope Job, at 2 and 100 workers ($TFGEN_RESTART_N).
func BenchmarkJobRestart(b *testing.B) {
	ns := os.Getenv("TFGEN_RESTART_N")
	if ns == "" {
		ns = "2,100"
	}
	for _, f := range strings.Split(ns, ",") {
		var n int
		if _, err := fmt.Sscan(f, &n); err != nil || n < 2 {
			b.Fatalf("TFGEN_RESTART_N: %q is not a count of 2 or more", f)
		}
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			var total time.Duration
			runs := 0
			for b.Loop() {
				total += jobRestart(b, n)
				runs++
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(runs), "ms-all-running-again")
		})
	}
}
