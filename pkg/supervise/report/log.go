package report

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/tfgen/tfgen/pkg/supervise"
)

// Log writes reports as lines to W.
type Log struct {
	mu sync.Mutex
	// W receives the lines (stderr).
	W io.Writer
	// Replica names the replica in each line (worker-1).
	Replica string
}

var _ supervise.Reporter = (*Log)(nil)

// Report implements supervise.Reporter.
func (l *Log) Report(r supervise.Report) {
	var b strings.Builder
	if r.State != "" {
		fmt.Fprintf(&b, "tfsupervisor: %s: state %s, restarts %d", l.Replica, r.State, r.Restarts)
		if r.LastExitCode != nil {
			fmt.Fprintf(&b, ", last exit code %d", *r.LastExitCode)
		}
		if r.Reason != "" {
			fmt.Fprintf(&b, " (%s)", r.Reason)
		}
		b.WriteByte('\n')
	}
	for _, e := range r.Events {
		fmt.Fprintf(&b, "tfsupervisor: %s: %s %s: %s\n", l.Replica, e.Type, e.Reason, e.Note)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = io.WriteString(l.W, b.String())
}

// Flush implements supervise.Reporter; Log has nothing queued.
func (l *Log) Flush(context.Context) error { return nil }

// Multi reports to each of its reporters.
type Multi []supervise.Reporter

var _ supervise.Reporter = Multi(nil)

// Report implements supervise.Reporter.
func (m Multi) Report(r supervise.Report) {
	for _, rep := range m {
		rep.Report(r)
	}
}

// Flush implements supervise.Reporter.
func (m Multi) Flush(ctx context.Context) error {
	var first error
	for _, rep := range m {
		if err := rep.Flush(ctx); err != nil && first == nil {
			first = err
		}
	}
	return first
}
