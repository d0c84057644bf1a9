//go:build unix

package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/tfgen/tfgen/pkg/supervise"
)

// Runner starts training processes with the process-wide reaper.
type Runner struct{}

var _ supervise.Runner = (*Runner)(nil)

// NewRunner starts the reaper (once per process) and returns a Runner.
// Failing to become a child subreaper is reported with logf, not fatal:
// orphaned grandchildren then go to PID 1.
func NewRunner(logf func(string, ...any)) *Runner {
	if _, err := getReaper(); err != nil && logf != nil {
		logf("%v; orphaned grandchildren will not be reaped here", err)
	}
	return &Runner{}
}

// Start implements supervise.Runner: cmd runs in a new process group with
// cmd's stdin, stdout and stderr, or the supervisor's where cmd has none. A
// command without a slash is looked up in PATH.
func (*Runner) Start(cmd supervise.Command) (supervise.Process, error) {
	if len(cmd.Args) == 0 {
		return nil, &supervise.StartError{Code: 127, Err: errors.New("no command")}
	}
	path := cmd.Path
	if path == "" {
		path = cmd.Args[0]
	}
	if !strings.Contains(path, "/") {
		lp, err := exec.LookPath(path)
		if err != nil {
			return nil, &supervise.StartError{Code: 127, Err: err}
		}
		path = lp
	}
	r, _ := getReaper()
	p := &process{done: make(chan struct{}), marker: newMarker()}
	files := []uintptr{fd(cmd.Stdin, 0), fd(cmd.Stdout, 1), fd(cmd.Stderr, 2)}
	env := append(cmd.Env[:len(cmd.Env):len(cmd.Env)], markerEnv+"="+p.marker)
	attr := &syscall.ProcAttr{Dir: cmd.Dir, Env: env, Files: files,
		Sys: &syscall.SysProcAttr{Setpgid: true}}
	r.mu.Lock()
	pid, err := syscall.ForkExec(path, cmd.Args, attr)
	runtime.KeepAlive(cmd.Stdin) // no finalizer closes them before the fork
	runtime.KeepAlive(cmd.Stdout)
	runtime.KeepAlive(cmd.Stderr)
	if err == nil {
		p.pid = pid
		r.waiters[pid] = p.exited
	}
	r.mu.Unlock()
	if err != nil {
		return nil, startError(path, err)
	}
	return p, nil
}

// fd is f's descriptor, or def when f is nil.
func fd(f *os.File, def uintptr) uintptr {
	if f == nil {
		return def
	}
	return f.Fd()
}

func startError(path string, err error) error {
	code := 126
	if errors.Is(err, syscall.ENOENT) {
		code = 127
	}
	msg := fmt.Errorf("exec %s: %w", path, err)
	if errors.Is(err, syscall.E2BIG) {
		msg = fmt.Errorf("exec %s: %w (the arguments and environment together are over the kernel's limit)", path, err)
	}
	return &supervise.StartError{Code: code, Err: msg}
}

// markerEnv is the variable that marks a training process and, as they
// inherit it, all its descendants: its value is unique to the process.
const markerEnv = "TFGEN_SUPERVISED"

var markers atomic.Int64

func newMarker() string {
	return strconv.Itoa(os.Getpid()) + "." + strconv.FormatInt(markers.Add(1), 10)
}

// process is a started training process; the reaper completes it.
type process struct {
	pid    int
	marker string
	done   chan struct{}
	exit   supervise.Exit
}

var _ supervise.Process = (*process)(nil)

func (p *process) Pid() int              { return p.pid }
func (p *process) Done() <-chan struct{} { return p.done }
func (p *process) Exit() supervise.Exit  { return p.exit }
func (p *process) Kill() error           { return p.Signal(syscall.SIGKILL) }

// Signal sends sig to the process group; once the process has exited
// (reaped, or awaiting its reaping) it sends nothing and says
// os.ErrProcessDone.
func (p *process) Signal(sig os.Signal) error {
	select {
	case <-p.done:
		return os.ErrProcessDone
	default:
	}
	if zombie(p.pid) {
		return os.ErrProcessDone
	}
	return signalGroup(p.pid, sig)
}

// exited runs on the reaper: it kills what is left of the group and every
// other descendant that kept the process's marker, then publishes the
// exit, so a restarted process never meets its predecessor's children.
func (p *process) exited(ws syscall.WaitStatus) {
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	killLeftovers(p.marker, reaperErr == nil)
	p.exit = ExitOf(ws)
	close(p.done)
}

func signalGroup(pgid int, sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return fmt.Errorf("signal %v: not a Unix signal", sig)
	}
	if err := syscall.Kill(-pgid, s); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal process group %d: %w", pgid, err)
	}
	return nil
}

// ExitOf turns a wait status into an Exit: the exit status, or 128+n
// after signal n.
func ExitOf(ws syscall.WaitStatus) supervise.Exit {
	switch {
	case ws.Signaled():
		sig := ws.Signal()
		return supervise.Exit{Code: 128 + int(sig), Signal: int(sig), Reason: "Signaled", Message: sig.String()}
	case ws.ExitStatus() == 0:
		return supervise.Exit{Code: 0, Reason: "Completed"}
	default:
		return supervise.Exit{Code: ws.ExitStatus(), Reason: "Error"}
	}
}
