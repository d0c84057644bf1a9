package teardown

import (
	"context"
	"sync"

	"github.com/tfgen/tfgen/pkg/supervise"
)

// Local stops replicas that run as local processes, each under a
// supervise.Supervisor of its own in this process (`tfgen run`). Stopping
// a replica cancels the context its Supervisor runs under, which then does
// what it does when its pod is deleted: SIGTERM to the process group, and
// SIGKILL after the grace period.
//
// Like scaling a StatefulSet to zero, Stop returns once every replica has
// been told to stop, not once it is gone: the caller may be one of the
// replicas it stops, and waits for them all anyway.
type Local struct {
	mu      sync.Mutex
	stops   map[string][]context.CancelFunc
	stopped map[string]bool
}

var _ supervise.Teardown = (*Local)(nil)

// Add registers stop as the way to stop one replica of type t (lowercase).
// A replica added after its type was stopped is stopped at once, as a pod
// would never start in a StatefulSet scaled to zero.
func (l *Local) Add(t string, stop context.CancelFunc) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped[t] {
		stop()
		return
	}
	if l.stops == nil {
		l.stops = map[string][]context.CancelFunc{}
	}
	l.stops[t] = append(l.stops[t], stop)
}

// Stop implements supervise.Teardown: it stops every replica of each of
// types, in order. A type with no replicas counts as stopped.
func (l *Local) Stop(_ context.Context, types []string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped == nil {
		l.stopped = map[string]bool{}
	}
	for _, t := range types {
		l.stopped[t] = true
		for _, stop := range l.stops[t] {
			stop()
		}
		delete(l.stops, t)
	}
	return nil
}
