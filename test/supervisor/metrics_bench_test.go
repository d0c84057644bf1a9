package supervisor

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/tfgen/tfgen/test/harness"
)

// startReader runs $TFGEN_BIN/tfgen metrics for l's namespace.
func startReader(tb testing.TB, l *large) *harness.Metrics {
	tb.Helper()
	tfgen := filepath.Join(os.Getenv("TFGEN_BIN"), "tfgen")
	if _, err := os.Stat(tfgen); err != nil {
		tb.Fatalf("tfgen metrics: %v (make build, and set TFGEN_BIN)", err)
	}
	return harness.StartMetrics(tb, tfgen, l.cp.Kubeconfig(), l.Namespace)
}

// scrape reads the reader's metrics with Prometheus' text parser.
func scrape(ctx context.Context, m *harness.Metrics) (map[string]*dto.MetricFamily, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+m.Addr+"/metrics", nil)
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
	for _, n := range largeNs(b, "1000") {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			for b.Loop() {
				var r *harness.Metrics
				allWorkers(b, n, 3*time.Second, 0, func(l *large) { r = startReader(b, l) })
				var mfs map[string]*dto.MetricFamily
				harness.Poller{Interval: 100 * time.Millisecond, Timeout: time.Minute, RetryErrors: true}.Poll(b, "the reader to count the job",
					func(ctx context.Context) (bool, string, error) {
						var err error
						if mfs, err = scrape(ctx, r); err != nil {
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
