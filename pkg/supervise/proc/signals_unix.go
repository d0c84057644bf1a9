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
// about a millisecond for all 60-odd; so SIGTERM and SIGINT are caught
// before Signals returns and the others in the background, and ready is
// closed once all are. Start nothing that signals should reach before
// then (GatedRunner).
func Signals() (sigs <-chan os.Signal, ready <-chan struct{}) {
	in := make(chan os.Signal, 64)
	out := make(chan os.Signal, 64)
	done := make(chan struct{})
	signal.Notify(in, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		signal.Notify(in)
		close(done)
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
