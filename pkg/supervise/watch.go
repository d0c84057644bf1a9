package supervise

import (
	"context"

	"github.com/tfgen/tfgen/pkg/record"
)

// ContainerStatus is the training container's status as the kubelet
// reports it in the pod's status.
type ContainerStatus struct {
	// PodUID of the pod: exits are numbered per pod.
	PodUID string
	// RestartCount is the kubelet's count of the container's restarts.
	RestartCount int32
	// Running is true while the container runs.
	Running bool
	// Terminated is the current container's exit (state.terminated), if
	// it has exited and not been restarted yet.
	Terminated *Exit
	// LastTerminated is the previous container's exit
	// (lastState.terminated), once the kubelet has restarted it.
	LastTerminated *Exit
}

// exits returns the exits in st, oldest first, with their IDs.
func (st ContainerStatus) exits() (exits []Exit, ids []string) {
	if st.LastTerminated != nil && st.RestartCount > 0 {
		exits, ids = append(exits, *st.LastTerminated), append(ids, exitID(st.PodUID, st.RestartCount-1))
	}
	if st.Terminated != nil {
		exits, ids = append(exits, *st.Terminated), append(ids, exitID(st.PodUID, st.RestartCount))
	}
	return exits, ids
}

// Watcher follows one replica in sidecar mode: the kubelet runs and
// restarts the training container; the Watcher learns each exit from the
// container's status and does everything that follows it (record, outcome,
// reports, teardown, deadline, backoffLimit). Each exit counts once, also
// across restarts of the Watcher, by the pod's UID and the exit's place in
// the kubelet's restart count.
type Watcher struct {
	// Config of the replica; Validate must have accepted it.
	Config *Config
	// Statuses delivers the training container's status whenever the
	// pod changes; Run returns when it is closed.
	Statuses <-chan ContainerStatus
	// Store holds the job's status.
	Store record.Store
	// Reporter publishes state changes and Events.
	Reporter Reporter
	// Teardown stops replicas when the job ends; nil stops nothing.
	Teardown Teardown
	// Clock; nil is the system clock.
	Clock Clock
}

// Run follows the replica until ctx ends (SIGTERM: the pod is going away);
// it keeps running after the training container has finished, so that the
// pod stays and nothing trains again.
func (w *Watcher) Run(ctx context.Context) Result {
	clock := w.Clock
	if clock == nil {
		clock = RealClock{}
	}
	r := &replica{cfg: w.Config, store: w.Store, rep: w.Reporter, td: w.Teardown, clock: clock}
	if why := r.begin(ctx); why != "" {
		return r.idle(ctx, why, nil)
	}
	deadline := r.deadlineTimer()
	running := int32(-1) // the restart count of the container last seen running
	for {
		select {
		case <-ctx.Done():
			r.flush(ctx)
			return Result{Reason: r.state(), Restarts: r.restarts, ExitCode: 0}
		case <-deadline:
			o := r.endByDeadline(ctx)
			r.finish(ctx, o)
			r.cfg.Logf("the training container cannot be stopped from a sidecar; the clean pod policy decides")
			return r.idle(ctx, "the job ran past its active deadline", nil)
		case st, ok := <-w.Statuses:
			if !ok { // only when ctx is done, in a pod
				r.flush(ctx)
				return Result{Reason: r.state(), Restarts: r.restarts}
			}
			exits, ids := st.exits()
			for i, ex := range exits {
				o := r.exited(ctx, ex, ids[i])
				switch {
				case o.duplicate || o.restart:
					continue
				case o.ended:
					r.finish(ctx, o)
					return r.idle(ctx, "the job has ended ("+endReason(o.status)+")", nil)
				case o.status.Ended():
					r.flush(ctx)
					return r.idle(ctx, "the job has ended ("+endReason(o.status)+")", nil)
				default:
					r.flush(ctx)
					return r.idle(ctx, "replica "+r.cfg.Self.String()+" has finished ("+o.reason+")", nil)
				}
			}
			if st.Running && st.RestartCount > running {
				if running >= 0 {
					r.running(ctx)
				}
				running = st.RestartCount
			}
		}
	}
}
