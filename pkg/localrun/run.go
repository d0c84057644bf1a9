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
	"github.com/tfgen/tfgen/pkg/supervise/teardown"
)

// drainTimeout bounds the wait for a replica's last output once its
// process has gone: a descendant that left its process group may hold the
// pipe open for ever.
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
	live := &tracker{Runner: runner, procs: map[supervise.Process]bool{}}
	stdin, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	defer stdin.Close()
	pipes := make([][2]*os.File, len(p.Replicas))
	for i := range pipes {
		if pipes[i][0], pipes[i][1], err = os.Pipe(); err != nil {
			for _, pp := range pipes[:i] {
				pp[0].Close()
				pp[1].Close()
			}
			return nil, fmt.Errorf("pipe for replica %s: %w", p.Replicas[i].Ref, err)
		}
	}

	for i := range p.Replicas {
		pr.starting(i)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	store, td := &record.Memory{}, &teardown.Local{}
	results := make([]supervise.Result, len(p.Replicas))
	var wg sync.WaitGroup
	for i := range p.Replicas {
		rctx, stop := context.WithCancel(ctx)
		td.Add(p.Replicas[i].Ref.Type, stop)
		cfg := *p.Replicas[i].Config
		cfg.Logf = pr.logf(i)
		sup := &supervise.Supervisor{Config: &cfg, Runner: live, Store: store, Reporter: reporter{pr, i}, Teardown: td, Clock: o.Clock}
		cmd := p.Replicas[i].Command
		rd, wr := pipes[i][0], pipes[i][1]
		cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, wr, wr
		copied := make(chan struct{})
		go func() {
			defer close(copied)
			pr.copy(i, rd)
		}()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer stop()
			results[i] = sup.Run(rctx, cmd)
			wr.Close()
			select {
			case <-copied:
			case <-time.After(drainTimeout):
			}
			rd.Close()
		}()
	}
	done := make(chan struct{})
	interrupted := make(chan bool, 1)
	go func() { interrupted <- watch(ctx.Done(), o.Signals, done, cancel, live, pr) }()
	wg.Wait()
	close(done)

	status, err := store.Get(context.WithoutCancel(ctx))
	if err != nil {
		return nil, err
	}
	s := &Summary{Job: p.Job, Status: status, Interrupted: <-interrupted && !status.Ended()}
	for i, r := range p.Replicas {
		s.Replicas = append(s.Replicas, ReplicaResult{Ref: r.Ref, Result: results[i], State: state(results[i], status, r.Ref)})
	}
	return s, nil
}

// watch stops the replicas at the end of ctx, on the first stop signal or
// when output fails, and kills them on the next signal, until done. It reports whether the
// run was stopped that way.
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

// tracker is a Runner that keeps the processes it started, to kill them.
type tracker struct {
	supervise.Runner
	mu    sync.Mutex
	procs map[supervise.Process]bool
}

// Start implements supervise.Runner.
func (t *tracker) Start(cmd supervise.Command) (supervise.Process, error) {
	p, err := t.Runner.Start(cmd)
	if err == nil {
		t.mu.Lock()
		t.procs[p] = true
		t.mu.Unlock()
	}
	return p, err
}

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
