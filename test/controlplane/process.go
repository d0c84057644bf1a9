package controlplane

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// process is one running control-plane binary whose output goes to a file.
type process struct {
	name    string
	logPath string
	cmd     *exec.Cmd
	done    chan struct{} // closed when the process has exited
	err     error         // its exit status, set before done is closed
}

// startProcess runs bin/name with args; stdout and stderr go to dir/name.log.
func startProcess(bin, dir, name string, args ...string) (*process, error) {
	path := filepath.Join(bin, name)
	if _, err := os.Stat(path); err != nil {
		return nil, missingBinary(bin, name)
	}
	p := &process{name: name, logPath: filepath.Join(dir, name+".log"), done: make(chan struct{})}
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
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		out.Close()
		close(p.done)
	}()
	return p, nil
}

func missingBinary(bin, name string) error {
	older := ""
	if strings.Contains(name, "kube-1.") {
		older = "; of an older Kubernetes minor, it builds only what hack/tools/install.sh's KUBE_OLDER lists"
	}
	return fmt.Errorf("controlplane: %s not found in %s: run `make tools` (or set TFGEN_BIN to the directory holding the control-plane binaries)%s", name, bin, older)
}

// stop sends SIGTERM, and SIGKILL if the process has not exited in grace.
func (p *process) stop(grace time.Duration) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// tail returns the last n lines of the process's output.
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

// failure wraps err with the process's recent output.
func (p *process) failure(err error) error {
	return fmt.Errorf("%s: %w\n--- last lines of %s ---\n%s", p.name, err, p.logPath, p.tail(40))
}

// waitFor polls check until it returns nil, the process exits or ctx ends.
func (p *process) waitFor(ctx context.Context, what string, check func(context.Context) error) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		err := check(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-p.done:
			return p.failure(fmt.Errorf("exited before %s: %v", what, p.err))
		case <-ctx.Done():
			return p.failure(fmt.Errorf("waiting for %s: %w (last error: %v)", what, ctx.Err(), err))
		case <-tick.C:
		}
	}
}

// waitHealthy polls url with client until it answers 200, the process exits
// or ctx ends. Polling a health endpoint is the synchronisation; the interval
// only bounds how often it is asked.
func (p *process) waitHealthy(ctx context.Context, client *http.Client, url string, header http.Header) error {
	return p.waitFor(ctx, url+" to answer 200", func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		for k, v := range header {
			req.Header[k] = v
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			return fmt.Errorf("%s: %s", resp.Status, body)
		}
		return nil
	})
}

// insecureLoopbackClient is for the health endpoints of the controller-manager
// and scheduler, which serve self-signed certificates on 127.0.0.1.
var insecureLoopbackClient = &http.Client{
	Timeout: 5 * time.Second,
	Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // loopback health check
	},
}

// freePorts returns n distinct free TCP ports on 127.0.0.1. They are held
// until all n are chosen, then released for the processes to bind.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// retryOnPortClash runs start up to three times while it fails because a
// port chosen for its process was taken before the process bound it (by
// another test package's process, or as the local port of a connection).
func retryOnPortClash(start func() error) error {
	var err error
	for range 3 {
		if err = start(); !portClash(err) {
			return err
		}
	}
	return err
}

// portClash reports whether err is a process's failure to bind its port;
// failure() includes the process's last lines of output.
func portClash(err error) bool {
	return err != nil && strings.Contains(err.Error(), "address already in use")
}

func freePort() (int, error) {
	ports, err := freePorts(1)
	if err != nil {
		return 0, err
	}
	return ports[0], nil
}

// binDir is $TFGEN_BIN, or bin/ at the root of the tfgen module.
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
			return "", errors.New("controlplane: TFGEN_BIN is not set and the tfgen module root was not found")
		}
		dir = parent
	}
}
