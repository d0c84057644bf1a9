//go:build unix

package proc

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/tfgen/tfgen/pkg/supervise"
)

// Signals relays every signal this process receives, except SIGCHLD (the
// reaper's) and SIGURG (the Go runtime's preemption), to sigs, for
// forwarding to the training process group.
//
// Catching a signal costs a round trip to the Go runtime's signal thread,
// about 1-2 ms for all 60-odd. So SIGTERM and SIGINT are caught before
// Signals returns, the other standard signals (1-31) in the background
// while the supervisor gets ready, closing ready when done, and the
// real-time signals (34-64) after that: one of those arriving in the
// first milliseconds takes its default action. Start nothing that
// signals should reach before ready is closed (GatedRunner).
func Signals() (sigs <-chan os.Signal, ready <-chan struct{}) {
	in := make(chan os.Signal, 64)
	out := make(chan os.Signal, 64)
	done := make(chan struct{})
	signal.Notify(in, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		var standard []os.Signal
		for n := syscall.Signal(1); n < 32; n++ {
			if n != syscall.SIGCHLD && n != syscall.SIGURG && n != syscall.SIGKILL && n != syscall.SIGSTOP {
				standard = append(standard, n)
			}
		}
		signal.Notify(in, standard...)
		close(done)
		signal.Notify(in) // the rest: real-time signals
	}()
	go func() {
		for s := range in {
			if s != syscall.SIGCHLD && s != syscall.SIGURG {
				out <- s
			}
		}
	}()
	return out, done
}

// GatedRunner is a Runner that starts nothing before Ready is closed.
type GatedRunner struct {
	supervise.Runner
	Ready <-chan struct{}
}

var _ supervise.Runner = GatedRunner{}

// Start implements supervise.Runner.
func (g GatedRunner) Start(cmd supervise.Command) (supervise.Process, error) {
	<-g.Ready
	return g.Runner.Start(cmd)
}
