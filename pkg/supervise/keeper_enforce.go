package supervise

import (
	"context"
	"slices"
	"time"
)

// enforce hands the enforcer what the status as known asks for (a
// decision acts only once written): the targets, the types to gate and the
// pods whose gate to lift. Before a type joins the teardown, the
// replicas' last words are saved (flushTimeout at most): its pods' records
// go with them.
func (kp *keeping) enforce(ctx context.Context) {
	if kp.enf == nil {
		return
	}
	w := wanted{targets: kp.Job.Targets(kp.status), lifts: kp.lifts()}
	for _, t := range kp.Job.Gates(kp.status) {
		if !slices.Contains(kp.status.Gated, t) && !slices.Contains(kp.gated, t) && kp.made(t) {
			w.gates = append(w.gates, t)
		}
	}
	if slices.Equal(w.targets, kp.sent.targets) && slices.Equal(w.gates, kp.sent.gates) && slices.Equal(w.lifts, kp.sent.lifts) {
		if now := kp.clock.Now(); len(w.targets) > 0 && !now.Before(kp.checked.Add(driftCheck)) && kp.beyond(w.targets) {
			kp.checked = now
			w.check = true
			kp.enf.want(w)
		}
		return
	}
	if n := len(kp.status.Teardown); n > kp.savedFor {
		kp.logs.save(ctx, true)
		kp.savedFor = n
	}
	kp.sent = w
	kp.enf.want(w)
}

// made reports whether every replica of type t below its target has a
// pod, or has finished: its StatefulSet is done making its pods. Only
// then is t gated: the StatefulSet controller takes a new template only
// at the end of the sync under way, which at 1,000 replicas is the one
// making the job's pods at 20 a second (60-86 s in make bench-anchor);
// and every pod it made after would be made gated, to be lifted one by
// one, while each finished replica it made again would cost it a DELETE
// and a POST from the budget that makes the job's pods.
func (kp *keeping) made(t string) bool {
	have := map[int32]bool{}
	for _, o := range kp.replicas {
		if o.Type == t {
			have[o.Index] = true
		}
	}
	for i := range kp.Job.keep(kp.status, t) {
		if !have[i] && !kp.status.Finished(t, i) {
			return false
		}
	}
	return true
}

// lifts names the pods whose gate the keeper lifts (Job.Lifts). A
// replica whose finish came with its pod's departure and is not written
// yet (writes wait up to the write interval: 5 s at 1,000 replicas) has
// finished all the same: its pod made again, gated, keeps its gate.
func (kp *keeping) lifts() []Lift {
	s := kp.status
	if len(kp.departed) > 0 {
		s = s.DeepCopy()
		absorb(s, kp.departed)
	}
	var out []Lift
	for _, r := range kp.Job.Lifts(s, kp.replicas) {
		for _, o := range kp.replicas {
			if o.Ref == r {
				out = append(out, Lift{Pod: kp.Job.Name + "-" + r.String(), UID: o.Pod})
			}
		}
	}
	return out
}

// driftCheck is the least time between two checks of the StatefulSets
// against their targets.
const driftCheck = 5 * time.Second

// beyond reports whether a pod is seen past its type's target: a
// StatefulSet scaled up behind the keeper's back, or one whose scale-down
// is still under way (the check tells them apart).
func (kp *keeping) beyond(ts []Target) bool {
	for _, o := range kp.replicas {
		for _, t := range ts {
			if t.Type == o.Type && o.Index >= t.Replicas {
				return true
			}
		}
	}
	return false
}
