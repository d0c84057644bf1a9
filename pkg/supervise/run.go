package supervise

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/tfgen/tfgen/pkg/record"
)

// Supervisor runs one replica's training process in wrap mode: it starts
// the process, forwards signals to its process group, restarts it by the
// replica's policy (under backoffLimit, once the keeper grants it), stops
// it when the job ends or is suspended, and reports each change on the
// replica's pod.
type Supervisor struct {
	// Config of the replica; Validate must have accepted it.
	Config *Config
	// Runner starts the training process.
	Runner Runner
	// Status is the job's status, which the Supervisor follows.
	Status record.Source
	// Reporter publishes the replica's record and Events.
	Reporter Reporter
	// Clock; nil is the system clock.
	Clock Clock
	// Signals the supervisor received; each is forwarded to the training
	// process group. SIGTERM and SIGINT also stop supervision: the group
	// gets the grace period, then SIGKILL. Nil: no signals.
	Signals <-chan os.Signal
	// Previous is the replica's record as its pod carries it, left by an
	// earlier supervisor in the same pod (its container restarted); nil
	// when there is none.
	Previous *record.Replica
	// Output, when not nil, captures the training process's output, so
	// that the end of it goes into the replica's record at an exit that
	// is not a success.
	Output Output
	// Linger keeps the supervisor, once the replica is done, idle until
	// it is stopped, instead of returning: in a pod, whose container the
	// kubelet would start again, and beside the job's keeper.
	Linger bool
	// Complete, with Linger, ends supervision once the job gives the pod
	// back (its type torn down, or its StatefulSet shrunk below it), if
	// the replica trained in it: the container then exits for good (its
	// restart rules), and the pod ends, holding nothing, before the
	// StatefulSet controller gets to delete it. A pod that found its work
	// done (one made again after the job ended) lingers: the StatefulSet
	// would only make it again.
	Complete bool
	// ClusterEnv sets, at each start of the training process, the
	// replica's cluster environment (TF_CONFIG, or MX_CONFIG and DMLC_*)
	// from the job's layout as its status has it, over the command's own;
	// a resize that changes it restarts the process in place. Without it
	// the command's env is used as it is (tfgen run computes it).
	ClusterEnv bool
}

// wrap is one run of a Supervisor.
type wrap struct {
	*Supervisor
	r     *replica
	clock Clock
	cmd   Command

	proc      Process          // the training process, while it runs
	stopping  string           // why proc is being stopped, if it is
	kill      <-chan time.Time // SIGKILL once the grace period is over
	waiting   bool             // to restart, after backoff and grant
	backedOff bool             // the backoff before the restart is over
	backoff   <-chan time.Time
	runs      int       // consecutive restarts, for the backoff
	started   time.Time // of the last run
	done      bool      // the replica will not train again here
	leaving   bool      // supervision is being stopped: return after the exit
	layout    int32     // the layout generation the process started in
	env       []string  // the cluster env it started with (ClusterEnv)
	resized   bool      // stopped for a resize: to start again at once
}

// Run supervises cmd until this replica is done (or, with Linger, until
// it is stopped), and returns how it ended: the last exit code (the
// supervisor's own exit code), or 0 when the replica idles because its
// work was done before it started. Cancelling ctx stops the training
// process like SIGTERM.
func (s *Supervisor) Run(ctx context.Context, cmd Command) Result {
	w := &wrap{Supervisor: s, clock: s.Clock, cmd: cmd}
	if w.clock == nil {
		w.clock = RealClock{}
	}
	w.r = &replica{cfg: s.Config, rep: s.Reporter, clock: w.clock}
	if s.Previous != nil {
		w.r.rec = *s.Previous
	}
	// The job's status is followed until Run returns, also while the
	// process is being stopped after ctx ended.
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	jobs := s.Status.Watch(wctx)
	done := ctx.Done()
	// An earlier supervisor in this pod was about to restart the process.
	w.waiting, w.backedOff = w.r.rec.State == record.StateRestarting, true
	for {
		if w.r.job != nil {
			w.step()
		}
		if w.done && w.proc == nil && (!s.Linger || s.Complete && w.trained() && w.r.released()) {
			if s.Linger {
				DeliverLast(ctx, w.Config.Logf, w.Reporter) // the pod ends with this process
			}
			res := w.finish(ctx)
			res.Released = s.Linger
			return res
		}
		select {
		case st := <-jobs:
			w.r.job = st
		case <-w.exited():
			if w.onExit() {
				return w.finish(ctx)
			}
		case <-w.backoff:
			w.backoff, w.backedOff = nil, true
		case <-w.kill:
			w.kill = nil
			w.Config.Logf("grace period over: SIGKILL to process group %d", w.proc.Pid())
			_ = w.proc.Kill()
		case sig := <-s.Signals:
			if !isStop(sig) {
				w.forward(sig)
			} else if w.stop(fmt.Sprintf("got %v", sig), sig) {
				return w.finish(ctx)
			}
		case <-done:
			done = nil
			if w.stop("stopping", syscall.SIGTERM) {
				return w.finish(ctx)
			}
		}
	}
}

// step does what the replica's state and the job's status call for.
func (w *wrap) step() {
	r := w.r
	switch {
	case w.proc != nil:
		why := r.stopFor()
		if why == "" && w.layout < r.job.LayoutGeneration {
			why = w.resize()
		}
		if why != "" && w.stopping == "" && !w.exitPending() {
			w.terminate(why, syscall.SIGTERM)
		}
	case w.resized:
		switch why, final := r.hold(); {
		case why == "":
			w.start(false)
		case final:
			w.resized, w.done = false, true
			r.noRestart(ReasonJobEnded)
		}
	case w.waiting:
		if why, final := r.hold(); why != "" {
			w.waiting, w.done = false, final
			switch {
			case !final:
				r.noRestart(ReasonSuspended)
			case r.deniedRestart():
				r.refused()
			default:
				r.noRestart(ReasonJobEnded)
			}
		} else if w.backedOff && r.granted() {
			w.waiting = false
			w.start(true)
		}
	case !w.done:
		why, final := r.hold()
		switch {
		case why == "":
			w.start(r.rec.State == record.StateRestarting)
		case final:
			r.idle(why)
			w.done = true
		}
	}
}

// trained reports whether the replica trained in this pod: this
// supervisor started its process, or an earlier one in the pod did.
func (w *wrap) trained() bool {
	return !w.started.IsZero() || trainedHere(w.Previous)
}

// resize takes up a resize of the job (ReasonResized when the process
// must restart with a new cluster env, else "").
func (w *wrap) resize() string {
	env, err := w.clusterEnv()
	if err == nil && slices.Equal(env, w.env) {
		w.layout = w.r.job.LayoutGeneration
		w.Config.Logf("the job was resized; this replica's cluster environment is as it was: training goes on")
		return ""
	}
	return ReasonResized
}

// clusterEnv is the replica's cluster environment as "NAME=value", by the
// job's layout as its status has it (none without ClusterEnv).
func (w *wrap) clusterEnv() ([]string, error) {
	cfg := w.Config
	if !w.ClusterEnv || len(cfg.Job.Layout.Roles) == 0 {
		return nil, nil
	}
	vars, err := cfg.Job.at(w.r.job).Layout.Env(cfg.Self.Type, cfg.Self.Index, cfg.Job.Namespace)
	if err != nil {
		return nil, err
	}
	env := make([]string, len(vars))
	for i, v := range vars {
		env[i] = v.Name + "=" + v.Value
	}
	return env, nil
}

// start starts the training process; a process that cannot be started
// counts as one that exited at once (127 or 126).
func (w *wrap) start(restart bool) {
	w.started = w.clock.Now()
	cmd := w.cmd
	env, err := w.clusterEnv()
	w.env, w.layout = env, w.r.job.LayoutGeneration
	if err != nil { // a layout the process cannot be given: it cannot run
		w.Config.Logf("the cluster's environment: %v", err)
		w.r.running(restart, w.resized)
		w.resized = false
		w.after(w.r.exited(Exit{Code: 126, Reason: "ClusterEnvError", Message: err.Error()}, ""))
		return
	}
	cmd.Env = withEnv(cmd.Env, env)
	var streams []*os.File
	if w.Output != nil {
		if so, se, err := w.Output.Streams(); err != nil {
			w.Config.Logf("%v; the output is not kept", err)
		} else {
			cmd.Stdout, cmd.Stderr, streams = so, se, []*os.File{so, se}
		}
	}
	p, err := w.Runner.Start(cmd)
	for _, f := range streams {
		f.Close()
	}
	resized := w.resized
	w.resized = false
	if err != nil {
		w.Config.Logf("%v", err)
		w.r.running(restart, resized)
		w.after(w.r.exited(startFailure(err), ""))
		return
	}
	w.proc = p
	w.r.running(restart, resized)
}

// withEnv returns env with vars ("NAME=value") in place of those of the
// same names.
func withEnv(env, vars []string) []string {
	if len(vars) == 0 {
		return env
	}
	set := map[string]bool{}
	for _, kv := range vars {
		name, _, _ := strings.Cut(kv, "=")
		set[name] = true
	}
	out := make([]string, 0, len(env)+len(vars))
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); !set[name] {
			out = append(out, kv)
		}
	}
	return append(out, vars...)
}

// exitPending reports whether the training process has exited, its exit
// not handled yet: it ended by itself, before anything stopped it.
func (w *wrap) exitPending() bool {
	select {
	case <-w.proc.Done():
		return true
	default:
		return false
	}
}

func (w *wrap) exited() <-chan struct{} {
	if w.proc == nil {
		return nil
	}
	return w.proc.Done()
}

// onExit handles the training process's exit, and reports whether the
// supervisor must return: it was stopped by a signal.
func (w *wrap) onExit() bool {
	ex, why := w.proc.Exit(), w.stopping
	w.proc, w.stopping, w.kill = nil, "", nil
	if w.Output != nil {
		ex.Tail = w.Output.Tail()
	}
	restart := w.r.exited(ex, why)
	if w.leaving {
		return true
	}
	switch why {
	case ReasonJobEnded:
		w.done = true
	case ReasonSuspended:
	case ReasonJobRestart: // with every replica, at once
		w.waiting, w.backedOff = true, true
	case ReasonResized: // at once, counted nowhere
		w.resized = true
	default:
		w.after(restart)
	}
	return false
}

// after goes on from an exit: to the wait before a restart, or done.
func (w *wrap) after(restart bool) {
	if !restart {
		w.done = true
		return
	}
	if w.clock.Now().Sub(w.started) >= ResetAfter {
		w.runs = 0
	}
	w.runs++
	w.waiting, w.backedOff, w.backoff = true, true, nil
	if d := w.Config.Policy.Backoff.Delay(w.runs); d > 0 {
		w.backedOff, w.backoff = false, w.clock.After(d)
	}
}

// stopLog says why the training process is stopped, by the reason.
var stopLog = map[string]string{ReasonJobEnded: "the job has ended", ReasonSuspended: "the job is suspended", ReasonTerminated: "stopping",
	ReasonJobRestart: "the job restarts", ReasonResized: "the job was resized"}

// terminate sends sig (SIGTERM, or the stop signal the supervisor got) to
// the process group, and SIGKILL after the grace period; why is the reason
// of the replica's Stopped state.
func (w *wrap) terminate(why string, sig os.Signal) {
	err := w.proc.Signal(sig)
	if errors.Is(err, os.ErrProcessDone) {
		return // it ended by itself: its exit is on the way
	}
	w.stopping = why
	w.Config.Logf("%s: %s to process group %d, SIGKILL after %v", stopLog[why], signalName(sig), w.proc.Pid(), w.Config.GracePeriod)
	if err != nil {
		w.Config.Logf("signal process group %d: %v", w.proc.Pid(), err)
	}
	if w.kill == nil {
		w.kill = w.clock.After(w.Config.GracePeriod)
	}
}

// stop stops supervision (SIGTERM or SIGINT, passed on as sig, or ctx
// ended): the process, if any, is terminated and Run returns once it
// exited; otherwise at once (true).
func (w *wrap) stop(why string, sig os.Signal) bool {
	w.leaving = true
	if w.proc != nil {
		if w.stopping == "" {
			w.Config.Logf("%s", why)
			w.terminate(ReasonTerminated, sig)
		}
		return false
	}
	if w.waiting {
		// The job may have failed for want of this restart: its status
		// says, if the watch has not yet.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		if s, err := w.Status.Get(ctx); err == nil {
			w.r.job = s
		}
		cancel()
		w.waiting = false
		if w.r.deniedRestart() {
			w.r.refused()
		} else {
			w.r.noRestart(ReasonTerminated)
		}
	}
	return true
}

func (w *wrap) forward(sig os.Signal) {
	if w.proc == nil {
		return // no process to forward it to
	}
	if err := w.proc.Signal(sig); err != nil {
		w.Config.Logf("forward %v to process group %d: %v", sig, w.proc.Pid(), err)
	}
}

// finish delivers the reports and returns the result.
func (w *wrap) finish(ctx context.Context) Result {
	flush(ctx, w.Config.Logf, w.Reporter)
	return w.r.result()
}

func startFailure(err error) Exit {
	var se *StartError
	if errors.As(err, &se) {
		return se.Exit()
	}
	return Exit{Code: 126, Reason: "CommandNotExecutable", Message: err.Error()}
}

// isStop reports whether sig asks the supervisor to stop: SIGTERM (the pod
// is going away) or SIGINT.
func isStop(sig os.Signal) bool { return sig == syscall.SIGTERM || sig == syscall.SIGINT }

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
