package operate

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tfgen/tfgen/test/harness"
)

// resizeJob is a job of n workers on the node agent, each printing the
// TF_CONFIG it got to DIR/POD.tfconfig and training until its pod stops.
const resizeJob = `apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: grow
spec:
  tfReplicaSpecs:
    Worker:
      replicas: @N@
      restartPolicy: OnFailure
      template:
        spec:
          terminationGracePeriodSeconds: 2
          containers:
            - name: tensorflow
              image: tfgen.test/shell:1
              command: [sh, -c, 'printf "%s\n" "$TF_CONFIG" >> "$DIR/$POD_NAME.tfconfig"; exec sleep 100000']
              env: [{name: DIR, value: "@DIR@"}]
`

// resize runs a job of from workers on the node agent, resizes it to to
// workers with tfgen scale, and returns the time until every worker
// trains with the new layout (its last TF_CONFIG names to workers) and
// how many of the pods that stayed were recreated.
func resize(tb testing.TB, from, to int) (time.Duration, int) {
	c := newCluster(tb, "op-resize")
	startAgent(tb, c.cp)
	dir := tb.TempDir()
	src := strings.NewReplacer("@N@", strconv.Itoa(from), "@DIR@", dir).Replace(resizeJob)
	c.applyYAML([]byte(src), false)
	pods := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("grow-worker-%d", i)
		}
		return out
	}
	wait := func(n int) {
		harness.Poller{Interval: 100 * time.Millisecond, Timeout: 5 * time.Minute}.Poll(tb, fmt.Sprintf("%d workers training with %d in TF_CONFIG", n, n), func(context.Context) (bool, string, error) {
			for _, pod := range pods(n) {
				if got := lastWorkers(dir, pod); got != n {
					return false, fmt.Sprintf("%s: %d workers", pod, got), nil
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
	return took, recreated
}

// TestResize grows a job of 3 workers to 5 on the node agent: every
// worker trains with the new layout, and no pod is recreated.
func TestResize(t *testing.T) {
	t.Parallel()
	if _, recreated := resize(t, 3, 5); recreated != 0 {
		t.Errorf("%d pods recreated by the resize, want none", recreated)
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
