package prometheus

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// Job is the scrape job of the targets, the job label of their series.
const Job = "tfgen"

// poller is how long Start, WaitUp and WaitScrape wait, and how often they
// look.
var poller = harness.Poller{Interval: 50 * time.Millisecond, Timeout: 30 * time.Second}

// Server is a running Prometheus.
type Server struct {
	// URL is its address, http://127.0.0.1:PORT.
	URL string

	targets []string
	client  *http.Client
}

// Start runs Prometheus scraping targets (host:port, whose metrics are at
// /metrics) every second, waits until it is ready, and stops it when t
// ends. Its configuration, storage and log are in a directory of
// t.TempDir(); the log is printed if t has failed.
func Start(t testing.TB, targets ...string) *Server {
	t.Helper()
	dir := t.TempDir()
	config := filepath.Join(dir, "prometheus.yml")
	if err := writeConfig(config, targets); err != nil {
		t.Fatal(err)
	}
	s := &Server{targets: targets, client: &http.Client{Timeout: 10 * time.Second}}
	var p *controlplane.Process // the last one started
	t.Cleanup(func() {
		if p == nil {
			return
		}
		p.Stop(10 * time.Second)
		if t.Failed() {
			t.Logf("prometheus: last lines of %s:\n%s", p.LogPath(), p.Tail(50))
		}
	})
	// A port chosen free may be taken before Prometheus binds it; then it
	// exits, and it is started again on another.
	for attempt := 1; ; attempt++ {
		port, err := controlplane.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		s.URL = "http://127.0.0.1:" + strconv.Itoa(port)
		p, err = controlplane.StartProcess(dir, "prometheus",
			"--config.file="+config,
			"--storage.tsdb.path="+filepath.Join(dir, "data"),
			"--web.listen-address=127.0.0.1:"+strconv.Itoa(port),
			// Else the first scrape waits for the default 5s.
			"--scrape.discovery-reload-interval=100ms",
		)
		if err != nil {
			t.Fatal(err)
		}
		poller.Poll(t, "prometheus at "+s.URL+" to be ready", func(ctx context.Context) (bool, string, error) {
			if p.Exited() {
				return true, "", nil
			}
			if err := s.get(ctx, "/-/ready"); err != nil {
				return false, err.Error(), nil
			}
			return true, "", nil
		})
		if !p.Exited() {
			return s
		}
		if attempt == 3 || !strings.Contains(p.Tail(20), "address already in use") {
			t.Fatalf("prometheus exited before it was ready: %v", p.Err())
		}
	}
}

// writeConfig writes the configuration of Start: one job scraping targets
// every second.
func writeConfig(path string, targets []string) error {
	config := map[string]any{
		"global": map[string]any{"scrape_interval": "1s", "scrape_timeout": "1s"},
		"scrape_configs": []any{map[string]any{
			"job_name":       Job,
			"static_configs": []any{map[string]any{"targets": append([]string{}, targets...)}},
			// Prometheus 3 refuses a response without a valid Content-Type
			// unless told what to assume.
			"fallback_scrape_protocol": "PrometheusText0.0.4",
		}},
	}
	data, err := yaml.Marshal(config)
	if err != nil {
		return fmt.Errorf("prometheus: configuration: %w", err)
	}
	return os.WriteFile(path, data, 0o644)
}

// get asks Prometheus for path and fails unless it answers 200.
func (s *Server) get(ctx context.Context, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil)
	if err != nil {
		return err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", path, resp.Status)
	}
	return nil
}
