package supervise

import (
	"context"
	"strconv"
	"strings"

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
	// Disruption, when not empty, says why the pod is going away from
	// outside (deleted, evicted, preempted): an exit then is a stop, not
	// a failure.
	Disruption string
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

// exitID identifies an exit in sidecar mode: the pod's UID and the number
// of restarts before the exit. exitAfter reports whether id comes after
// prev (an exit of another pod always does).
func exitID(podUID string, seq int32) string { return podUID + "/" + strconv.Itoa(int(seq)) }

func exitAfter(id, prev string) bool {
	pu, ps, ok1 := strings.Cut(prev, "/")
	iu, is, ok2 := strings.Cut(id, "/")
	if !ok1 || !ok2 || pu != iu {
		return true
	}
	p, _ := strconv.Atoi(ps)
	i, _ := strconv.Atoi(is)
	return i > p
}

// Watcher follows one replica in sidecar mode: the kubelet runs and
// restarts the training container; the Watcher learns each exit from the
// container's status and records it on the pod as the Supervisor does
// (the keeper counts restarts and decides the job from there). Each exit
// counts once, also across restarts of the Watcher, by the pod's UID and
// the exit's place in the kubelet's restart count. A sidecar cannot stop
// the training container: when the job ends, the clean pod policy's
// scale-down does.
type Watcher struct {
	// Config of the replica; Validate must have accepted it.
	Config *Config
	// Statuses delivers the training container's status whenever the
	// pod changes; Run returns when it is closed.
	Statuses <-chan ContainerStatus
	// Status is the job's status, which the Watcher follows.
	Status record.Source
	// Reporter publishes the replica's record and Events.
	Reporter Reporter
	// Clock; nil is the system clock.
	Clock Clock
	// Previous is the replica's record as its pod carries it (an earlier
	// Watcher's); nil when there is none.
	Previous *record.Replica
	// Complete ends the Watcher, as Supervisor.Complete does, once the
	// job gives the pod back after the training container ran in it and
	// exited for good.
	Complete bool
}

// Run follows the replica until ctx ends (SIGTERM: the pod is going away);
// it keeps running after the training container has finished, so that the
// pod stays and nothing trains again.
func (w *Watcher) Run(ctx context.Context) Result {
	clock := w.Clock
	if clock == nil {
		clock = RealClock{}
	}
	r := &replica{cfg: w.Config, rep: w.Reporter, clock: clock}
	if w.Previous != nil {
		r.rec = *w.Previous
	}
	jobs := w.Status.Watch(ctx)
	statuses := w.Statuses
	done := false
	ended := false // the training container ran in this pod and exited for good
	for {
		if w.Complete && ended && r.released() {
			DeliverLast(ctx, w.Config.Logf, w.Reporter)
			res := r.result()
			res.Released = true
			return res
		}
		// The container's statuses are read once the job's status is known.
		var follow <-chan ContainerStatus
		if r.job != nil && !done {
			follow = statuses
		}
		select {
		case <-ctx.Done():
			flush(ctx, w.Config.Logf, w.Reporter)
			return r.result()
		case st, ok := <-jobs:
			if !ok { // only when ctx is done
				jobs = nil
				continue
			}
			first := r.job == nil
			r.job = st
			if why, final := r.hold(); first && final && !r.rec.State.Finished() {
				r.idle(why)
				done = true
			}
			if !done && r.stopFor() == ReasonJobEnded && r.rec.State.Active() {
				// A sidecar cannot stop the training container; the
				// teardown will. Saying so now lets the keeper tear down at
				// once rather than wait for an exit only the teardown brings.
				r.rec.State, r.rec.Reason, r.rec.Message = record.StateStopped, ReasonJobEnded, "the job ended: the clean pod policy's teardown stops the training container"
				r.report()
			}
		case st, ok := <-follow:
			if !ok { // only when ctx is done, in a pod
				statuses = nil
				continue
			}
			done = w.follow(r, st)
			ended = st.Terminated != nil && !st.Running && r.rec.State.Finished()
		}
	}
}

// follow records what the container status st tells that is new: exits
// not yet counted, and the container running again. It reports whether
// the replica is done.
func (w *Watcher) follow(r *replica, st ContainerStatus) bool {
	exits, ids := st.exits()
	for i, ex := range exits {
		if !exitAfter(ids[i], r.rec.LastExitID) {
			continue
		}
		if r.rec.State == record.StateRestarting {
			// The kubelet ran it again in between, unseen.
			r.rec.State = record.StateRunning
			r.rec.Restarts++
		}
		r.rec.LastExitID = ids[i]
		stopped := ""
		if st.Disruption != "" {
			stopped = ReasonDisrupted
			ex.Message = strings.TrimSpace(ex.Message + " (pod " + st.Disruption + ")")
		}
		if !r.exited(ex, stopped) {
			return true
		}
	}
	if st.Running && st.Terminated == nil {
		switch r.rec.State {
		case record.StateRestarting:
			r.running(true, false)
		case record.StateRunning, record.StateStopped: // stopped: awaiting the teardown
		default:
			r.running(false, false)
		}
	}
	return false
}

// Hold decides, before a sidecar-mode pod's training container starts,
// whether the replica may train: the kubelet runs the image's entrypoint,
// which tfsupervisor cannot hold back once started, so an init container
// asks first. It reads the job's first status and returns false when the
// replica may train. When it may not (the job ended, the replica already
// succeeded or failed), the replica is reported Idle and Hold returns
// true; the caller then holds the pod until it is stopped.
func Hold(ctx context.Context, cfg *Config, status record.Source, rep Reporter, prev *record.Replica) (bool, error) {
	r := &replica{cfg: cfg, rep: rep, clock: RealClock{}}
	if prev != nil {
		r.rec = *prev
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	select {
	case st, ok := <-status.Watch(wctx):
		if !ok {
			return false, ctx.Err()
		}
		r.job = st
	case <-ctx.Done():
		return false, ctx.Err()
	}
	why, final := r.hold()
	if !final {
		return false, nil
	}
	if !r.rec.State.Finished() {
		r.idle(why)
	} else {
		cfg.Logf("not training: %s; holding the pod until stopped", why)
	}
	flush(ctx, cfg.Logf, rep)
	return true, nil
}
