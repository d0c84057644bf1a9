package harness

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// Metrics is `tfgen metrics` following one namespace, run by a test on a
// port of 127.0.0.1 that stays the same across its restarts.
type Metrics struct {
	// Addr it serves on, 127.0.0.1:PORT.
	Addr string

	tb                    testing.TB
	tfgen, kubeconfig, ns string
	cmd                   *exec.Cmd
	out                   bytes.Buffer
}

// StartMetrics runs tfgen (its path) metrics for namespace ns through
// kubeconfig, waits until it has listed the jobs, and stops it when tb
// ends, printing its output if tb failed.
func StartMetrics(tb testing.TB, tfgen, kubeconfig, ns string) *Metrics {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	m := &Metrics{Addr: ln.Addr().String(), tb: tb, tfgen: tfgen, kubeconfig: kubeconfig, ns: ns}
	ln.Close()
	m.Start()
	tb.Cleanup(func() {
		m.Stop()
		if tb.Failed() {
			tb.Logf("tfgen metrics:\n%s", m.out.String())
		}
	})
	return m
}

// Start runs the reader (again, after Stop), and waits until it has
// listed the jobs: /healthz answers 200.
func (m *Metrics) Start() {
	m.tb.Helper()
	m.cmd = exec.Command(m.tfgen, "metrics", "-n", m.ns, "--listen", m.Addr, "--kubeconfig", m.kubeconfig)
	m.cmd.Stdout, m.cmd.Stderr = &m.out, &m.out
	if err := m.cmd.Start(); err != nil {
		m.tb.Fatal(err)
	}
	Poller{Interval: 50 * time.Millisecond, Timeout: time.Minute, RetryErrors: true}.Poll(m.tb, "tfgen metrics to list the jobs",
		func(ctx context.Context) (bool, string, error) {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+m.Addr+"/healthz", nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return false, "", err
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK, resp.Status, nil
		})
}

// Stop ends the reader with SIGTERM, as the kubelet does.
func (m *Metrics) Stop() {
	if m.cmd == nil || m.cmd.Process == nil {
		return
	}
	m.cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck // it may have ended
	m.cmd.Wait()                          //nolint:errcheck // its exit on SIGTERM
	m.cmd = nil
}
