package supervise

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/tfgen/tfgen/pkg/record"
)

// Supervisor runs one replica's training process in wrap mode: it starts
// the process, forwards signals to its process group, restarts it by the
// replica's policy, and does everything that follows an exit.
type Supervisor struct {
	// Config of the replica; Validate must have accepted it.
	Config *Config
	// Runner starts the training process.
	Runner Runner
	// Store holds the job's status.
	Store record.Store
	// Reporter publishes state changes and Events.
	Reporter Reporter
	// Teardown stops replicas when the job ends; nil stops nothing.
	Teardown Teardown
	// Clock; nil is the system clock.
	Clock Clock
	// Signals the supervisor received; each is forwarded to the training
	// process group. SIGTERM and SIGINT also stop supervision: the group
	// gets the grace period, then SIGKILL. Nil: no signals.
	Signals <-chan os.Signal
}

func (s *Supervisor) replica() *replica {
	clock := s.Clock
	if clock == nil {
		clock = RealClock{}
	}
	return &replica{cfg: s.Config, store: s.Store, rep: s.Reporter, td: s.Teardown, clock: clock}
}

// Run supervises cmd until this replica is done, and returns how it ended:
// the last exit code (the supervisor's own exit code), or 0 when the
// replica idles because its work was already done. Cancelling ctx stops
// the training process like SIGTERM.
func (s *Supervisor) Run(ctx context.Context, cmd Command) Result {
	r := s.replica()
	if why := r.begin(ctx); why != "" {
		return r.idle(ctx, why, s.Signals)
	}
	consecutive := 0
	for attempt := 0; ; attempt++ {
		if r.pastDeadline() {
			o := r.endByDeadline(ctx)
			r.finish(ctx, o)
			code := 1
			if c := r.lastExitCode(); c != nil {
				code = int(*c)
			}
			return Result{ExitCode: code, Reason: ReasonDeadlineExceeded, Restarts: r.restarts}
		}
		started := r.clock.Now()
		var ex Exit
		p, err := s.Runner.Start(cmd)
		if err != nil {
			ex = startFailure(err)
			r.cfg.Logf("%v", err)
		} else {
			if attempt > 0 {
				r.running(ctx)
			}
			var stopped bool
			if ex, stopped = s.wait(ctx, r, p); stopped {
				return r.stopped(ctx, ex)
			}
		}
		o := r.exited(ctx, ex, "")
		if !o.restart {
			r.finish(ctx, o)
			return Result{ExitCode: ex.Code, Reason: o.reason, Restarts: r.restarts}
		}
		if r.clock.Now().Sub(started) >= ResetAfter {
			consecutive = 0
		}
		consecutive++
		if !s.sleep(ctx, r, s.Config.Policy.Backoff.Delay(consecutive)) {
			return r.stopped(ctx, ex)
		}
	}
}

func startFailure(err error) Exit {
	var se *StartError
	if errors.As(err, &se) {
		return se.Exit()
	}
	return Exit{Code: 126, Reason: "CommandNotExecutable", Message: err.Error()}
}

// wait forwards signals to p's group until p exits. It reports whether a
// stop signal (or the end of ctx) came: then the group got SIGTERM and,
// after the grace period, SIGKILL. At the job's active deadline the group
// is stopped the same way, but that is not a stop from outside.
func (s *Supervisor) wait(ctx context.Context, r *replica, p Process) (Exit, bool) {
	var kill <-chan time.Time
	stopped := false
	done := ctx.Done()
	deadline := r.deadlineTimer()
	// terminate sends sig (the stop signal received, else SIGTERM) to the
	// group, and SIGKILL after the grace period.
	terminate := func(why string, sig os.Signal) {
		r.cfg.Logf("%s: %s to process group %d, SIGKILL after %v", why, signalName(sig), p.Pid(), r.cfg.GracePeriod)
		if err := p.Signal(sig); err != nil {
			r.cfg.Logf("signal process group %d: %v", p.Pid(), err)
		}
		if kill == nil {
			kill = r.clock.After(r.cfg.GracePeriod)
		}
	}
	for {
		select {
		case <-p.Done():
			return p.Exit(), stopped
		case sig := <-s.Signals:
			if isStop(sig) {
				stopped = true
				terminate(fmt.Sprintf("got %v", sig), sig)
			} else if err := p.Signal(sig); err != nil {
				r.cfg.Logf("forward %v to process group %d: %v", sig, p.Pid(), err)
			}
		case <-done:
			done, stopped = nil, true
			terminate("stopping", syscall.SIGTERM)
		case <-deadline:
			deadline = nil
			terminate("active deadline exceeded", syscall.SIGTERM)
		case <-kill:
			kill = nil
			r.cfg.Logf("grace period over: SIGKILL to process group %d", p.Pid())
			_ = p.Kill()
		}
	}
}

// sleep waits d, or until a stop signal or the end of ctx (false).
// Other signals are dropped: there is no process to forward them to.
func (s *Supervisor) sleep(ctx context.Context, r *replica, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := r.clock.After(d)
	for {
		select {
		case <-t:
			return true
		case <-ctx.Done():
			return false
		case sig := <-s.Signals:
			if isStop(sig) {
				return false
			}
		}
	}
}

// signalName names SIGTERM and SIGINT as the logs always have.
func signalName(sig os.Signal) string {
	switch sig {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	}
	return sig.String()
}
