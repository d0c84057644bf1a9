package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Interrupted is the cause of a context ended by a signal (see
// SignalContext). tfgen then exits with 128 plus the signal's number, as a
// shell reports a process the signal killed: 130 for SIGINT, 143 for
// SIGTERM.
type Interrupted struct {
	Signal os.Signal
}

func (e *Interrupted) Error() string { return fmt.Sprintf("interrupted by %s", signalName(e.Signal)) }

// Is makes an Interrupted a context.Canceled, as the cause of a cancelled
// context is expected to be.
func (e *Interrupted) Is(target error) bool { return target == context.Canceled }

// ExitCode returns 128 plus the signal's number.
func (e *Interrupted) ExitCode() int {
	if s, ok := e.Signal.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

func signalName(s os.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// SignalContext returns a copy of parent that ends, with an *Interrupted
// cause naming the signal, at the first SIGINT or SIGTERM, like
// signal.NotifyContext. stop restores the signals' default actions.
func SignalContext(parent context.Context) (ctx context.Context, stop context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		select {
		case s := <-sigs:
			cancel(&Interrupted{Signal: s})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		cancel(context.Canceled)
	}
}

// interruptible returns a writer to w that gives up when ctx ends: a write
// still blocked then (stdout a pipe read slowly, or not at all) is left
// behind, and the cause of ctx's end is returned, so that a signal stops
// tfgen at once even while it streams its output.
func interruptible(ctx context.Context, w io.Writer) io.Writer {
	return ctxWriter{ctx: ctx, w: w}
}

type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := context.Cause(c.ctx); err != nil {
		return 0, err
	}
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := c.w.Write(p)
		done <- result{n, err}
	}()
	select {
	case r := <-done:
		return r.n, r.err
	case <-c.ctx.Done():
		return 0, context.Cause(c.ctx)
	}
}
