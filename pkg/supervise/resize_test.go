package supervise_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// resizeScript writes the TF_CONFIG of each run, a line, to $OUT, then
// trains until SIGTERM.
const resizeScript = `echo "$TF_CONFIG" >> "$OUT"; trap 'exit 143' TERM; sleep 1000 & wait $!`

// tfConfigs returns the TF_CONFIG of each run so far, once there are n.
func tfConfigs(t *testing.T, out string, n int) []string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		b, _ := os.ReadFile(out)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(b) > 0 && len(lines) >= n {
			return lines
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %d runs: %q", n, b)
		}
		time.Sleep(5 * time.Millisecond) // a file the process writes: polled
	}
}

// resize writes a resize of the job into its status.
func (f *fixture) resize(t *testing.T, counts map[string]int32) {
	t.Helper()
	if _, err := f.store.Update(context.Background(), func(s *record.Status) error {
		if s.Layout == nil {
			s.Layout = map[string]int32{}
		}
		for k, v := range counts {
			s.Layout[k] = v
		}
		s.LayoutGeneration++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// resizing runs worker self of a job of one PS and two workers, sparse or
// dense, with its cluster env built at each start.
func resizing(t *testing.T, self int32, sparse bool) (f *fixture, out string, logs <-chan string, stop func() supervise.Result) {
	cfg := config(supervise.OnFailure)
	lines := make(chan string, 16)
	cfg.Logf = func(format string, args ...any) {
		select {
		case lines <- fmt.Sprintf(format, args...):
		default:
		}
	}
	cfg.Job.Layout = &cluster.Layout{Job: "j", Sparse: sparse, Roles: []cluster.Role{{Type: "ps", Replicas: 1, Port: 2222}, {Type: "worker", Replicas: 2, Port: 2222}}}
	cfg.Self = supervise.Ref{Type: "worker", Index: self}
	f = newFixture(t, cfg, true)
	out = filepath.Join(t.TempDir(), "tfconfig")
	sup := f.supervisor()
	sup.ClusterEnv = true
	done := make(chan supervise.Result, 1)
	go func() {
		done <- sup.Run(context.Background(), supervise.Command{Args: []string{"sh", "-c", resizeScript}, Env: append(os.Environ(), "OUT="+out, "TF_CONFIG=stale")})
	}()
	return f, out, lines, func() supervise.Result {
		f.signals <- os.Interrupt
		return <-done
	}
}

// TestResizeDense: a dense TF_CONFIG names every worker, so a resize
// restarts the training process in place with the new one, counted
// nowhere.
func TestResizeDense(t *testing.T) {
	f, out, _, stop := resizing(t, 0, false)
	if got := tfConfigs(t, out, 1)[0]; !strings.Contains(got, `"worker":["j-worker-0.j-worker.ns.svc:2222","j-worker-1.j-worker.ns.svc:2222"]`) {
		t.Fatalf("first run's TF_CONFIG %s: want the two workers (the stale one replaced)", got)
	}
	f.resize(t, map[string]int32{"worker": 3})
	if got := tfConfigs(t, out, 2)[1]; !strings.Contains(got, `"j-worker-2.j-worker.ns.svc:2222"]`) {
		t.Errorf("run after the resize: TF_CONFIG %s, want three workers", got)
	}
	res := stop()
	if rec := f.replica(t); rec.Restarts != 0 || res.Restarts != 0 {
		t.Errorf("record %+v, result %+v: a resize counted as a restart", rec, res)
	}
}

// TestResizeSparse: with dynamic workers a worker's TF_CONFIG names the
// parameter servers and itself only: more workers leave it as it was and
// its process trains on; another parameter server restarts it.
func TestResizeSparse(t *testing.T) {
	f, out, logs, stop := resizing(t, 1, true)
	tfConfigs(t, out, 1)
	f.resize(t, map[string]int32{"worker": 4})
	for goesOn := false; !goesOn; {
		select {
		case l := <-logs:
			goesOn = strings.Contains(l, "training goes on")
		case <-time.After(time.Minute):
			t.Fatal("the resize of the workers was not taken up")
		}
	}
	f.resize(t, map[string]int32{"ps": 2})
	lines := tfConfigs(t, out, 2)
	if len(lines) != 2 || !strings.Contains(lines[1], `"ps":["j-ps-0.j-ps.ns.svc:2222","j-ps-1.j-ps.ns.svc:2222"]`) {
		t.Errorf("runs %q: want two, the second with two parameter servers (more workers changed nothing)", lines)
	}
	stop()
}

// TestBeyondLayoutWaits: a replica past the job's count (its pod came
// before the resize that counts it) does not train until a resize does.
func TestBeyondLayoutWaits(t *testing.T) {
	f, out, _, stop := resizing(t, 2, false)
	f.resize(t, map[string]int32{"ps": 1}) // a resize that does not count it
	f.resize(t, map[string]int32{"worker": 3})
	lines := tfConfigs(t, out, 1)
	if len(lines) != 1 || !strings.Contains(lines[0], `"task":{"type":"worker","index":2}`) {
		t.Errorf("runs %q: want one, as worker 2 of three", lines)
	}
	stop()
}
