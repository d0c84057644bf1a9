package supervise

import (
	"context"
	"slices"
	"time"
)

// enforce hands the enforcer the targets of the status as known (a
// decision acts only once written). Before a type joins the teardown, the
// replicas' last words are saved (flushTimeout at most): its pods' records
// go with them, and the keeper with its own type.
func (kp *keeping) enforce(ctx context.Context) {
	if kp.enf == nil {
		return
	}
	ts := kp.Job.Targets(kp.status)
	if slices.Equal(ts, kp.sent) {
		if now := kp.clock.Now(); len(ts) > 0 && !now.Before(kp.checked.Add(driftCheck)) && kp.beyond(ts) {
			kp.checked = now
			kp.enf.want(ts, true)
		}
		return
	}
	if n := len(kp.status.Teardown); n > kp.savedFor {
		kp.logs.save(ctx, true)
		kp.savedFor = n
	}
	kp.sent = ts
	kp.enf.want(ts, false)
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
