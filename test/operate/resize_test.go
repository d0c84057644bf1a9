package operate

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/test/harness"
)

// resizeJob is a job of n workers on the node agent, each printing the
// TF_CONFIG it got to dir/POD.tfconfig and training until its pod stops;
// with dynamic workers (sparse TF_CONFIG) or not.
func resizeJob(n int, dir string, sparse bool) []byte {
	b := testjob.New("grow").Replica(job.Worker, int32(n), testjob.RestartPolicy(job.RestartOnFailure), testjob.Image("tfgen.test/shell:1"),
		testjob.Shell(`printf "%s\n" "$TF_CONFIG" >> "$DIR/$POD_NAME.tfconfig"; exec sleep 100000`), testjob.Env("DIR", dir),
		testjob.Pod(func(p *corev1.PodSpec) { p.TerminationGracePeriodSeconds = new(int64(2)) }))
	if sparse {
		b.DynamicWorkers()
	}
	return b.YAML()
}

// resize runs a job of from workers on the node agent, resizes it to to
// workers with tfgen scale, and returns the time until every worker
// trains with the new layout (its last TF_CONFIG names to workers) and
// how many of the pods that stayed were recreated.
func resize(tb testing.TB, from, to int) (time.Duration, int) {
	took, recreated, _ := resizeJobOf(tb, from, to, false)
	return took, recreated
}

// resizeJobOf is resize of a job with sparse TF_CONFIG or not; it also
// returns the directory of the TF_CONFIG each pod's runs got.
func resizeJobOf(tb testing.TB, from, to int, sparse bool) (time.Duration, int, string) {
	c := newCluster(tb, "op-resize-"+map[bool]string{false: "dense", true: "sparse"}[sparse])
	startAgent(tb, c.cp)
	dir := tb.TempDir()
	c.applyYAML(resizeJob(from, dir, sparse), false)
	pods := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("grow-worker-%d", i)
		}
		return out
	}
	wait := func(n int) {
		harness.Poller{Interval: 100 * time.Millisecond, Timeout: 5 * time.Minute}.Poll(tb, fmt.Sprintf("%d workers training with %d in TF_CONFIG", n, n), func(context.Context) (bool, string, error) {
			for i, pod := range pods(n) {
				if got := lastTask(dir, pod); sparse && got != i || !sparse && lastWorkers(dir, pod) != n {
					return false, fmt.Sprintf("%s: %d workers, task %d", pod, lastWorkers(dir, pod), got), nil
				}
			}
			return true, "", nil
		})
	}
	wait(from)
	uids := c.podUIDs("grow")
	began := time.Now()
	c.must(c.tfgen(began, "scale", "grow", "--workers", strconv.Itoa(to)), "scale")
	wait(to)
	took := time.Since(began)
	recreated := 0
	now := c.podUIDs("grow")
	for _, pod := range pods(min(from, to)) {
		if now[pod] != uids[pod] {
			recreated++
		}
	}
	return took, recreated, dir
}

// lastTask returns the task index of pod's last TF_CONFIG, -1 if none.
func lastTask(dir, pod string) int {
	b, err := os.ReadFile(filepath.Join(dir, pod+".tfconfig"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var cfg struct {
		Task struct{ Index int } `json:"task"`
	}
	if err != nil || json.Unmarshal([]byte(lines[len(lines)-1]), &cfg) != nil {
		return -1
	}
	return cfg.Task.Index
}

// TestResize grows a job of 3 workers to 5 on the node agent: every
// worker trains with the new layout, and no pod is recreated. With a
// dense TF_CONFIG the three restart their training in place with five
// workers named; with dynamic workers each worker's TF_CONFIG names only
// itself, so the three train on, untouched.
func TestResize(t *testing.T) {
	for _, sparse := range []bool{false, true} {
		t.Run(map[bool]string{false: "dense", true: "sparse"}[sparse], func(t *testing.T) {
			t.Parallel()
			_, recreated, dir := resizeJobOf(t, 3, 5, sparse)
			if recreated != 0 {
				t.Errorf("%d pods recreated by the resize, want none", recreated)
			}
			wantRuns := map[bool]int{false: 2, true: 1}[sparse]
			for i := range 3 {
				pod := fmt.Sprintf("grow-worker-%d", i)
				if b, _ := os.ReadFile(filepath.Join(dir, pod+".tfconfig")); strings.Count(string(b), "\n") != wantRuns {
					t.Errorf("%s ran %d times (TF_CONFIG %q), want %d", pod, strings.Count(string(b), "\n"), b, wantRuns)
				}
			}
		})
	}
}

// BenchmarkResize grows a job of 100 workers to 200 ($TFGEN_RESIZE, as
// FROM-TO) on the node agent: the time until all train with the new
// layout, and the pods recreated.
func BenchmarkResize(b *testing.B) {
	from, to := 100, 200
	if v := os.Getenv("TFGEN_RESIZE"); v != "" {
		if _, err := fmt.Sscanf(v, "%d-%d", &from, &to); err != nil {
			b.Fatalf("TFGEN_RESIZE %q: want FROM-TO", v)
		}
	}
	for b.Loop() {
		took, recreated := resize(b, from, to)
		b.ReportMetric(took.Seconds(), "s-resized")
		b.ReportMetric(float64(recreated), "pods-recreated")
	}
}
