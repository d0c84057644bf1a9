package controlplane

import "time"

// Process is a binary of the test binaries' directory run as the control
// plane runs its own: its output in a log file, killed with the test
// binary. Other test environments (test/prometheus) run theirs with it.
type Process struct{ p *process }

// StartProcess runs name from $TFGEN_BIN (else the tfgen module's bin/)
// with args; its output goes to dir/name.log.
func StartProcess(dir, name string, args ...string) (*Process, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	p, err := startProcess(bin, dir, name, args...)
	if err != nil {
		return nil, err
	}
	return &Process{p}, nil
}

// Exited reports whether the process has exited; Err is then its exit
// status.
func (p *Process) Exited() bool {
	select {
	case <-p.p.done:
		return true
	default:
		return false
	}
}

// Err is the process's exit status, once it has exited.
func (p *Process) Err() error { return p.p.err }

// Stop sends SIGTERM, and SIGKILL if the process has not exited in grace.
func (p *Process) Stop(grace time.Duration) { p.p.stop(grace) }

// Tail returns the last n lines of the process's output.
func (p *Process) Tail(n int) string { return p.p.tail(n) }

// LogPath is the file the process's output goes to.
func (p *Process) LogPath() string { return p.p.logPath }

// FreePort returns a port that was free on 127.0.0.1.
func FreePort() (int, error) { return freePort() }
