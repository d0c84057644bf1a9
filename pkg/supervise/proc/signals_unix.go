//go:build unix

package proc

import (
	"os"
	"os/signal"
	"syscall"
)

// Signals relays every signal this process receives, except SIGCHLD (the
// reaper's) and SIGURG (the Go runtime's preemption), to the returned
// channel, for forwarding to the training process group. stop ends the
// relay.
func Signals() (sigs <-chan os.Signal, stop func()) {
	in := make(chan os.Signal, 64)
	out := make(chan os.Signal, 64)
	signal.Notify(in)
	quit := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-in:
				if s == syscall.SIGCHLD || s == syscall.SIGURG {
					continue
				}
				select {
				case out <- s:
				case <-quit:
					return
				}
			case <-quit:
				return
			}
		}
	}()
	return out, func() {
		signal.Stop(in)
		close(quit)
	}
}
