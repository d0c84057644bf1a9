package prometheus

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestScrapeAndQuery runs Prometheus against a target serving a counter,
// and reads the counter back after each change.
func TestScrapeAndQuery(t *testing.T) {
	var count atomic.Int64
	count.Store(3)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		fmt.Fprintf(w, "# HELP selftest_jobs_total Jobs seen.\n# TYPE selftest_jobs_total counter\n")
		fmt.Fprintf(w, "selftest_jobs_total{framework=\"tensorflow\",job_namespace=\"x\"} %d\n", count.Load())
		fmt.Fprintf(w, "selftest_jobs_total{framework=\"mxnet\",job_namespace=\"x\"} 1\n")
	}))
	t.Cleanup(target.Close)
	addr := target.Listener.Addr().String()

	srv := Start(t, addr)
	srv.WaitUp(t, addr)
	want := map[string]float64{
		`{framework="tensorflow",job_namespace="x"}`: 3,
		`{framework="mxnet",job_namespace="x"}`:      1,
	}
	got, err := srv.Query(t.Context(), "selftest_jobs_total")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after the first scrape (-want +got):\n%s", diff)
	}

	count.Store(5)
	srv.WaitScrape(t)
	got, err = srv.Query(t.Context(), `sum by (framework) (selftest_jobs_total)`)
	if err != nil {
		t.Fatal(err)
	}
	want = map[string]float64{`{framework="tensorflow"}`: 5, `{framework="mxnet"}`: 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after a change (-want +got):\n%s", diff)
	}

	targets, err := srv.Targets(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(targets) != 1 || targets[0].Instance != addr || targets[0].Health != "up" {
		t.Errorf("targets: %+v, want %s up", targets, addr)
	}
}

// TestQueryErrors checks that what Query cannot answer is an error.
func TestQueryErrors(t *testing.T) {
	srv := Start(t)
	for _, tc := range []struct {
		name, expr, wantErr string
	}{
		{"syntax", "sum(", "bad_data"},
		{"range vector", "up[1m]", "a range vector"},
		{"string", `"text"`, "a string result"},
		{"same labels", `label_replace(vector(1), "job", "a", "", "") or label_replace(vector(2), "job", "b", "", "")`, "two series"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := srv.Query(t.Context(), tc.expr)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Query(%s): %v, want an error with %q", tc.expr, err, tc.wantErr)
			}
		})
	}
	got, err := srv.Query(t.Context(), "1 + 1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]float64{"{}": 2}, got); diff != "" {
		t.Errorf("scalar (-want +got):\n%s", diff)
	}
}

func TestLabelKey(t *testing.T) {
	for _, tc := range []struct {
		name   string
		labels map[string]string
		want   string
	}{
		{"none", nil, "{}"},
		{"dropped", map[string]string{"__name__": "m", "instance": "a:1", "job": "tfgen"}, "{}"},
		{"sorted", map[string]string{"b": "2", "a": "1", "job": "tfgen"}, `{a="1",b="2"}`},
		{"quoted", map[string]string{"a": "x\"y\n"}, `{a="x\"y\n"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := labelKey(tc.labels); got != tc.want {
				t.Errorf("labelKey(%v) = %s, want %s", tc.labels, got, tc.want)
			}
		})
	}
}
