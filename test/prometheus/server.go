package prometheus

import (
	"bytes"
	"context"
	"errors"
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

	"sigs.k8s.io/yaml"

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
	bin, err := binDir()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(bin, "prometheus")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("prometheus: prometheus not found in %s: run `make tools` (or set TFGEN_BIN to the directory holding the test binaries)", bin)
	}
	dir := t.TempDir()
	config := filepath.Join(dir, "prometheus.yml")
	if err := writeConfig(config, targets); err != nil {
		t.Fatal(err)
	}
	s := &Server{targets: targets, client: &http.Client{Timeout: 10 * time.Second}}
	var p *process // the last one started
	t.Cleanup(func() {
		if p == nil {
			return
		}
		p.stop(10 * time.Second)
		if t.Failed() {
			t.Logf("prometheus: last lines of %s:\n%s", p.logPath, p.tail(50))
		}
	})
	// A port chosen free may be taken before Prometheus binds it; then it
	// exits, and it is started again on another.
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		s.URL = "http://127.0.0.1:" + strconv.Itoa(port)
		p, err = startProcess(path, dir,
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
			if p.exited() {
				return true, "", nil
			}
			if err := s.get(ctx, "/-/ready"); err != nil {
				return false, err.Error(), nil
			}
			return true, "", nil
		})
		if !p.exited() {
			return s
		}
		if attempt == 3 || !strings.Contains(p.tail(20), "address already in use") {
			t.Fatalf("prometheus exited before it was ready: %v", p.err)
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

// process is the running Prometheus, its output going to a file.
type process struct {
	logPath string
	cmd     *exec.Cmd
	done    chan struct{} // closed when it has exited
	err     error         // its exit status, set before done is closed
}

// startProcess runs path with args in dir; its output goes to
// dir/prometheus.log.
func startProcess(path, dir string, args ...string) (*process, error) {
	p := &process{logPath: filepath.Join(dir, "prometheus.log"), done: make(chan struct{})}
	out, err := os.Create(p.logPath)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "# %s %s\n", path, strings.Join(args, " "))
	p.cmd = exec.Command(path, args...)
	p.cmd.Dir = dir
	p.cmd.Stdout, p.cmd.Stderr = out, out
	p.cmd.SysProcAttr = sysProcAttr()
	if err := p.cmd.Start(); err != nil {
		out.Close()
		return nil, fmt.Errorf("start prometheus: %w", err)
	}
	go func() {
		p.err = p.cmd.Wait()
		out.Close()
		close(p.done)
	}()
	return p, nil
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM, and SIGKILL if it has not exited in grace.
func (p *process) stop(grace time.Duration) {
	if p.exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// tail returns the last n lines of the output.
func (p *process) tail(n int) string {
	data, err := os.ReadFile(p.logPath)
	if err != nil {
		return err.Error()
	}
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// binDir is $TFGEN_BIN, or bin/ at the root of the tfgen module (as in
// test/controlplane).
func binDir() (string, error) {
	if d := os.Getenv("TFGEN_BIN"); d != "" {
		return filepath.Abs(d)
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(data, []byte("module github.com/tfgen/tfgen\n")) {
			return filepath.Join(dir, "bin"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("prometheus: TFGEN_BIN is not set and the tfgen module root was not found")
		}
		dir = parent
	}
}
