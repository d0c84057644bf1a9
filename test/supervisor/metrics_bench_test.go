package supervisor

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/tfgen/tfgen/test/harness"
)

// metricsReader is `tfgen metrics` following a large job's namespace.
type metricsReader struct {
	addr string
	cmd  *exec.Cmd
	out  bytes.Buffer
}

// startReader runs $TFGEN_BIN/tfgen metrics for l's namespace and waits
// until it has listed the jobs.
func startReader(tb testing.TB, l *large) *metricsReader {
	tb.Helper()
	tfgen := filepath.Join(os.Getenv("TFGEN_BIN"), "tfgen")
	if _, err := os.Stat(tfgen); err != nil {
		tb.Fatalf("tfgen metrics: %v (make build, and set TFGEN_BIN)", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	r := &metricsReader{addr: ln.Addr().String()}
	ln.Close()
	r.cmd = exec.Command(tfgen, "metrics", "-n", l.Namespace, "--listen", r.addr, "--kubeconfig", l.cp.Kubeconfig())
	r.cmd.Stdout, r.cmd.Stderr = &r.out, &r.out
	if err := r.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		r.cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck // it may have ended
		r.cmd.Wait()                          //nolint:errcheck // its exit on SIGTERM
		if tb.Failed() {
			tb.Logf("tfgen metrics:\n%s", r.out.String())
		}
	})
	harness.Poller{Interval: 50 * time.Millisecond, Timeout: time.Minute, RetryErrors: true}.Poll(tb, "tfgen metrics to list the jobs",
		func(ctx context.Context) (bool, string, error) {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+r.addr+"/healthz", nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return false, "", err
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK, resp.Status, nil
		})
	return r
}

// scrape reads the reader's metrics with Prometheus' text parser.
func (r *metricsReader) scrape(ctx context.Context) (map[string]*dto.MetricFamily, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+r.addr+"/metrics", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(resp.Body)
}

// sum is the sum of family name's samples whose labels include want.
func sum(mfs map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	total := 0.0
next:
	for _, m := range mfs[name].GetMetric() {
		for _, lp := range m.GetLabel() {
			if v, ok := want[lp.GetName()]; ok && v != lp.GetValue() {
				continue next
			}
		}
		switch {
		case m.GetCounter() != nil:
			total += m.GetCounter().GetValue()
		case m.GetGauge() != nil:
			total += m.GetGauge().GetValue()
		}
	}
	return total
}

// BenchmarkMetricsReader: `tfgen metrics` follows the namespace of a job
// of N workers (each of $TFGEN_LARGE_N, default 1000) under AllWorkers,
// from before its supervisors start to its end, beside them on the
// loopback API server. It reports the reader's CPU time and memory (its
// own process metrics) and its requests to the API server by verb (its
// own count): writes must be 0, and one watch of records and one of pods.
func BenchmarkMetricsReader(b *testing.B) {
	ns := os.Getenv("TFGEN_LARGE_N")
	if ns == "" {
		ns = "1000"
	}
	for _, f := range strings.Split(ns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			b.Fatalf("TFGEN_LARGE_N: %q is not a count", f)
		}
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			for b.Loop() {
				var r *metricsReader
				allWorkers(b, n, 3*time.Second, 0, func(l *large) { r = startReader(b, l) })
				var mfs map[string]*dto.MetricFamily
				harness.Poller{Interval: 100 * time.Millisecond, Timeout: time.Minute, RetryErrors: true}.Poll(b, "the reader to count the job",
					func(ctx context.Context) (bool, string, error) {
						var err error
						if mfs, err = r.scrape(ctx); err != nil {
							return false, "", err
						}
						ok := sum(mfs, "training_operator_jobs_successful_total", nil)
						return ok == 1, fmt.Sprintf("%v successful", ok), nil
					})
				reqs := func(verb string) float64 {
					return sum(mfs, "tfgen_metrics_api_requests_total", map[string]string{"verb": verb})
				}
				writes := sum(mfs, "tfgen_metrics_api_requests_total", nil) - reqs("GET") - reqs("LIST") - reqs("WATCH")
				b.ReportMetric(sum(mfs, "process_cpu_seconds_total", nil)*1000, "ms-cpu-reader")
				b.ReportMetric(sum(mfs, "process_cpu_seconds_total", nil)*1e6/float64(n), "us-cpu/replica")
				b.ReportMetric(sum(mfs, "process_resident_memory_bytes", nil)/1e6, "MB-rss-reader")
				b.ReportMetric(writes, "writes-reader")
				b.ReportMetric(reqs("WATCH"), "watches-reader")
				b.ReportMetric(reqs("LIST"), "lists-reader")
				if writes != 0 {
					b.Errorf("the reader made %v writes", writes)
				}
			}
		})
	}
}
