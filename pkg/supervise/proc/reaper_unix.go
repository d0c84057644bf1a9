//go:build unix

package proc

import (
	"errors"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// reaper owns Wait4(-1) for the whole process.
type reaper struct {
	mu      sync.Mutex
	waiters map[int]func(syscall.WaitStatus)
	orphans int // exits of processes nobody waited for
}

var (
	theReaper *reaper
	reaperErr error
	startOnce sync.Once
)

// getReaper starts the reaper on first use: it becomes a child subreaper
// when not PID 1, reaps whatever already exited, then reaps on every
// SIGCHLD.
func getReaper() (*reaper, error) {
	startOnce.Do(func() {
		reaperErr = becomeSubreaper()
		r := &reaper{waiters: map[int]func(syscall.WaitStatus){}}
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGCHLD)
		r.reap()
		go func() {
			for range sigs {
				r.reap()
			}
		}()
		theReaper = r
	})
	return theReaper, reaperErr
}

// reap collects every exited child and hands each status to the waiter
// registered for its pid. SIGCHLDs coalesce, so it loops until none is
// left.
func (r *reaper) reap() {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil || pid <= 0 {
			return
		}
		// Start holds mu from fork to registration, so a child that exits
		// at once is still found here.
		r.mu.Lock()
		w := r.waiters[pid]
		delete(r.waiters, pid)
		if w == nil {
			r.orphans++
		}
		r.mu.Unlock()
		if w != nil {
			w(ws)
		}
	}
}

// Orphans returns how many exited processes the reaper collected that no
// Process was waiting for (orphaned grandchildren): each would otherwise
// have stayed a zombie.
func Orphans() int {
	r, _ := getReaper()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.orphans
}
