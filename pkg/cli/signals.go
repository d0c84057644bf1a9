package cli

import (
	"context"
	"fmt"
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
