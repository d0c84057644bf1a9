package operate

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/pkg/record"
)

// syncBuffer is a bytes.Buffer safe for one writer and readers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// watch starts `tfgen status JOB --watch` and returns its output so far
// and a channel with its end, once it has printed the job's first status.
func (c *cluster) watch(now time.Time, job string, args ...string) (*syncBuffer, <-chan result) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.t.Context(), waitTimeout)
	out := &syncBuffer{}
	done := make(chan result, 1)
	go func() {
		defer cancel()
		done <- c.tfgenTo(ctx, out, now, append([]string{"status", job, "--watch"}, args...)...)
	}()
	c.poll("the first status of "+job, func(context.Context) (bool, string, error) {
		return strings.Contains(strings.ToLower(out.String()), "restarts:"), out.String(), nil
	})
	return out, done
}

// TestStatusWatch: --watch prints the status again on every change and
// ends with the job: 0 when it succeeded, 1 when it failed.
func TestStatusWatch(t *testing.T) {
	t.Parallel()
	c := newCluster(t, "op-watch")
	c.pendingJob("ok")
	c.pendingJob("bad")
	c.pendingJob("gone")
	now := t0.Add(time.Hour)

	out, done := c.watch(now, "ok")
	c.writeStatus("ok", func(s *record.Status) {
		s.AddSucceeded("chief", 0)
		s.Finish(true, "JobSucceeded", "replica chief-0 succeeded", t0.Add(30*time.Minute))
	})
	r := <-done
	final := c.must(c.tfgen(now, "status", "ok"), "status").stdout
	if r.code != 0 || r.stderr != "" || !strings.HasSuffix(out.String(), "\n\n"+final) || !strings.HasPrefix(out.String(), "Name:") ||
		!strings.Contains(out.String(), "State:             Running\n") {
		t.Errorf("watch of a job that succeeds: exit status %d, stderr %q, want 0 and nothing; want its running status, then its final one:\n%s\nstdout:\n%s",
			r.code, r.stderr, final, out.String())
	}

	out, done = c.watch(now, "bad", "-o", "yaml")
	c.writeStatus("bad", func(s *record.Status) {
		s.Finish(false, "BackoffLimitExceeded", "replica worker-1 exited with code 1", t0.Add(30*time.Minute))
	})
	r = <-done
	const wantErr = "tfgen: job bad failed: BackoffLimitExceeded: replica worker-1 exited with code 1\n"
	final = c.must(c.tfgen(now, "status", "bad", "-o", "yaml"), "status").stdout
	if r.code != 1 || r.stderr != wantErr || !strings.HasSuffix(out.String(), "---\n"+final) {
		t.Errorf("watch of a job that fails: exit status %d, stderr %q, want 1, %q; want its final status last:\n%s\nstdout:\n%s",
			r.code, r.stderr, wantErr, final, out.String())
	}

	// A job that has ended: one status, at once.
	r = c.tfgen(now, "status", "ok", "--watch", "-o", "json")
	if want := c.must(c.tfgen(now, "status", "ok", "-o", "json"), "status").stdout; r.code != 0 || r.stdout != want {
		t.Errorf("watch of a job that succeeded: exit status %d, stdout:\n%s\nwant 0 and:\n%s", r.code, r.stdout, want)
	}
	if r := c.tfgen(now, "status", "bad", "--watch"); r.code != 1 || r.stderr != wantErr {
		t.Errorf("watch of a job that failed: exit status %d, stderr %q, want 1, %q", r.code, r.stderr, wantErr)
	}

	// A job deleted while watched.
	_, done = c.watch(now, "gone")
	if err := c.cs.CoreV1().ConfigMaps(c.ns).Delete(t.Context(), "gone", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r.code != 1 || r.stderr != `tfgen: job "gone" not found in namespace "op-watch"`+"\n" {
		t.Errorf("watch of a job deleted: exit status %d, stderr %q", r.code, r.stderr)
	}
}
