// Package capture tees a training process's output in wrap mode: the
// process writes to pipes, which are copied on to the supervisor's own
// stdout and stderr (the container's log, as without capture), while the
// end of it is kept for the replica's record, so that it outlives the pod.
package capture

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// DefaultDrain bounds the wait, after the process exited, for the copies
// to reach the end of its output: the pipes stay open while a descendant
// that escaped the process group holds them.
const DefaultDrain = 2 * time.Second

// Output captures each run of a training process; it implements
// supervise.Output.
type Output struct {
	// Stdout and Stderr receive the process's output as it comes.
	Stdout, Stderr io.Writer
	// Drain bounds Tail's wait; zero is DefaultDrain.
	Drain time.Duration

	mu   sync.Mutex
	last *run
}

var _ supervise.Output = (*Output)(nil)

// run is the capture of one run: its copies and the end of its output.
type run struct {
	mu     sync.Mutex
	kept   []byte
	copied chan struct{} // closed once both streams reached their end
}

// keep is how much of a run's output is kept, some more than the record
// takes, so that its cut falls on a line.
const keep = 2 * record.MaxLogTail

func (r *run) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(p) >= keep {
		r.kept = append(r.kept[:0], p[len(p)-keep:]...)
		return len(p), nil
	}
	r.kept = append(r.kept, p...)
	if len(r.kept) > 2*keep {
		r.kept = append(r.kept[:0], r.kept[len(r.kept)-keep:]...)
	}
	return len(p), nil
}

// Streams implements supervise.Output: two pipes, each copied to its
// writer and kept.
func (o *Output) Streams() (stdout, stderr *os.File, err error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("capture output: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, nil, fmt.Errorf("capture output: %w", err)
	}
	r := &run{copied: make(chan struct{})}
	var wg sync.WaitGroup
	for _, c := range []struct {
		from *os.File
		to   io.Writer
	}{{outR, o.Stdout}, {errR, o.Stderr}} {
		wg.Go(func() {
			defer c.from.Close()
			// A failing writer (the container's log gone) must not stall
			// the process: the copy to the record goes on.
			_, _ = io.Copy(io.MultiWriter(r, &forgiving{w: c.to}), c.from)
		})
	}
	go func() {
		wg.Wait()
		close(r.copied)
	}()
	o.mu.Lock()
	o.last = r
	o.mu.Unlock()
	return outW, errW, nil
}

// Tail implements supervise.Output.
func (o *Output) Tail() string {
	o.mu.Lock()
	r := o.last
	o.mu.Unlock()
	if r == nil {
		return ""
	}
	d := o.Drain
	if d <= 0 {
		d = DefaultDrain
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.copied:
	case <-t.C:
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return record.Tail(string(r.kept))
}

// forgiving writes to w until a write fails, then discards.
type forgiving struct {
	w      io.Writer
	failed bool
}

func (f *forgiving) Write(p []byte) (int, error) {
	if f.w != nil && !f.failed {
		if _, err := f.w.Write(p); err != nil {
			f.failed = true
		}
	}
	return len(p), nil
}
