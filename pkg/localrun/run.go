package localrun

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
	"github.com/tfgen/tfgen/pkg/supervise/board"
	"github.com/tfgen/tfgen/pkg/supervise/report"
)

// drainTimeout bounds the wait for a process's last output once it has
// exited: a descendant that left its process group may hold the pipe open
// for ever.
const drainTimeout = 2 * time.Second

// Options drive a run.
type Options struct {
	// Out receives every line: the replicas' output and tfgen's.
	Out io.Writer
	// Color gives each replica's prefix a colour of its own.
	Color bool
	// Signals the run receives. The first SIGINT, SIGTERM or SIGHUP stops
	// every replica as the end of ctx does (SIGTERM, then SIGKILL after
	// the grace period); the next kills them at once. A failed write to
	// Out stops them too: nobody is watching.
	Signals <-chan os.Signal
	// Runner starts processes; nil is proc's.
	Runner supervise.Runner
	// Clock; nil is the system clock.
	Clock supervise.Clock
}

// Run runs every replica of p under its own supervisor until each is done,
// and returns how they and the job ended. Cancelling ctx stops them all.
func Run(ctx context.Context, p *Plan, o Options) (*Summary, error) {
	pr := newPrinter(o.Out, o.Color, p)
	runner := o.Runner
	if runner == nil {
		var err error
		if runner, err = defaultRunner(func(format string, args ...any) { pr.jobLine("", format, args...) }); err != nil {
			return nil, err
		}
	}
	stdin, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	defer stdin.Close()
	live := &tracker{base: runner, pr: pr, stdin: stdin, procs: map[supervise.Process]bool{}}
	for i := range p.Replicas {
		pr.starting(i)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The supervisors stop their processes themselves when the job's
	// status says so: there is nothing to tear down beyond.
	store, b := &record.Memory{}, board.New()
	// The keeper runs here, beside the replicas, as an operator would.
	keeper := &supervise.Keeper{Job: p.Policy, Replicas: b, Store: store, Reporter: jobReporter{pr}, Clock: o.Clock,
		Logf: func(format string, args ...any) { pr.jobLine("", format, args...) }}
	kctx, stopKeeper := context.WithCancel(context.WithoutCancel(ctx))
	kept := make(chan struct{})
	go func() {
		defer close(kept)
		keeper.Run(kctx)
	}()
	results := make([]supervise.Result, len(p.Replicas))
	var wg sync.WaitGroup
	for i := range p.Replicas {
		rctx, stop := context.WithCancel(ctx)
		cfg := *p.Replicas[i].Config
		cfg.Logf = pr.logf(i)
		rep := report.Multi{reporter{pr, i}, b.Reporter(p.Replicas[i].Ref)}
		sup := &supervise.Supervisor{Config: &cfg, Runner: replicaRunner{live, i}, Status: store, Reporter: rep, Clock: o.Clock}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer stop()
			results[i] = sup.Run(rctx, p.Replicas[i].Command)
		}()
	}
	done := make(chan struct{})
	interrupted := make(chan bool, 1)
	go func() { interrupted <- watch(ctx.Done(), o.Signals, done, cancel, live, pr) }()
	wg.Wait()
	close(done)
	// Its last look at the replicas decides what their last exits made of
	// the job.
	stopKeeper()
	<-kept

	status, err := store.Get(context.WithoutCancel(ctx))
	if err != nil {
		return nil, err
	}
	s := &Summary{Job: p.Job, Status: status, Interrupted: <-interrupted && !status.Ended()}
	for i, r := range p.Replicas {
		s.Replicas = append(s.Replicas, ReplicaResult{Ref: r.Ref, Result: results[i]})
	}
	return s, nil
}

// watch stops the replicas at the end of ctx, on the first stop signal or
// when output fails, and kills them on the next signal, until done. It
// reports whether the run was stopped that way.
func watch(ctxDone <-chan struct{}, sigs <-chan os.Signal, done <-chan struct{}, cancel func(), live *tracker, pr *printer) bool {
	stopped, signals, failed := false, 0, pr.failed
	stop := func() {
		if !stopped {
			stopped = true
			pr.jobLine(bold, "stopping every replica (SIGTERM, then SIGKILL after the grace period; interrupt again to kill them now)")
			cancel()
		}
	}
	for {
		select {
		case <-done:
			return stopped
		case <-ctxDone:
			ctxDone = nil
			stop()
		case <-failed:
			failed = nil
			stop()
		case sig := <-sigs:
			if sig != syscall.SIGINT && sig != syscall.SIGTERM && sig != syscall.SIGHUP {
				continue
			}
			if signals++; signals == 1 {
				stop()
				continue
			}
			pr.jobLine(bold, "killing every replica")
			live.killAll()
		}
	}
}

// tracker starts the replicas' processes, each with a new pipe as its
// stdout and stderr, and keeps them, to kill them.
type tracker struct {
	base  supervise.Runner
	pr    *printer
	stdin *os.File
	mu    sync.Mutex
	procs map[supervise.Process]bool
}

// replicaRunner starts replica i's processes.
type replicaRunner struct {
	t *tracker
	i int
}

// Start implements supervise.Runner. The process it returns is done once
// everything the process wrote has been printed, so that tfgen's line
// about its exit comes after its last line.
func (r replicaRunner) Start(cmd supervise.Command) (supervise.Process, error) {
	rd, wr, err := os.Pipe()
	if err != nil {
		return nil, &supervise.StartError{Code: 126, Err: fmt.Errorf("output pipe: %w", err)}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = r.t.stdin, wr, wr
	p, err := r.t.base.Start(cmd)
	wr.Close() // the process has its own copy
	if err != nil {
		rd.Close()
		return nil, err
	}
	copied, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(copied)
		r.t.pr.copy(r.i, rd)
	}()
	go func() {
		defer close(done)
		<-p.Done()
		select {
		case <-copied:
		case <-time.After(drainTimeout):
		}
		rd.Close()
	}()
	dp := &drained{Process: p, done: done}
	r.t.mu.Lock()
	r.t.procs[dp] = true
	r.t.mu.Unlock()
	return dp, nil
}

// drained is a process that is done once its output has been printed.
type drained struct {
	supervise.Process
	done chan struct{}
}

// Done implements supervise.Process.
func (d *drained) Done() <-chan struct{} { return d.done }

// killAll sends SIGKILL to the process group of every process still running.
func (t *tracker) killAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for p := range t.procs {
		select {
		case <-p.Done():
			delete(t.procs, p)
		default:
			_ = p.Kill()
		}
	}
}
