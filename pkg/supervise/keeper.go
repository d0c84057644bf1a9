package supervise

import (
	"context"
	"time"

	"github.com/tfgen/tfgen/pkg/kube"
	"github.com/tfgen/tfgen/pkg/record"
)

// DefaultWriteInterval is the least time between two writes of the
// job's status that neither end the job nor grant restarts: replicas
// starting, or finishing without ending the job, are written together.
// A job of more than StatusFanOut replicas writes less often, in
// proportion.
const DefaultWriteInterval = time.Second

// StatusFanOut bounds the watch events a second that the writes of the
// job's status which decide nothing send: every replica watches the
// status, so each write is one event for each, and a job of 1,000
// replicas writes them at most every 5 s.
const StatusFanOut = 200

// storeTimeout bounds one write of the status (retried on conflicts and
// transient errors inside); the keeper tries again later.
const storeTimeout = time.Minute

// flushTimeout bounds the wait for reports to be delivered.
const flushTimeout = 10 * time.Second

// Keeper keeps a job: it is the one writer of the job's status and the
// one actor on the job's objects. It follows every replica's record on
// its pod (Replicas), the job's status (Store) and, for an elastic job,
// the elastic pods of its namespace (Neighbours); it derives the status
// from them (Job.derive, resizes included) whenever one changes or a
// time derive asked for comes, and writes it when it differs; and it
// makes the cluster match the status as written (Job.Targets, enforced
// by Scaler): at its start, at every change, and again until the API
// server takes it.
// Every fact it decides or acts from lives on the pods and in the
// status, so a keeper that restarts picks up where the last one was,
// mid-teardown included. A job has one keeper, in the supervisor of
// Job.Keeper() (or in `tfgen run`).
type Keeper struct {
	// Job is the job's policy.
	Job *Job
	// Replicas is the keeper's view of the job's replicas.
	Replicas ReplicaFeed
	// Store holds the job's status.
	Store record.Store
	// Reporter publishes the job's Events (about the keeper's pod).
	Reporter Reporter
	// Scaler sets the replicas of the job's StatefulSets; nil: the job
	// has none (tfgen run, where the supervisors stop themselves).
	Scaler Scaler
	// Logs keeps the end of the output of the replicas, gathered from
	// their pods, for when the pods are gone; nil keeps none.
	Logs LogStore
	// Clock; nil is the system clock.
	Clock Clock
	// WriteInterval; zero is DefaultWriteInterval (or longer for more
	// than StatusFanOut replicas), a negative one writes every change at
	// once.
	WriteInterval time.Duration
	// Neighbours is the elastic pods of the job's namespace, for an
	// elastic job (Job.Elastic); nil for the others.
	Neighbours Neighbourhood
	// Logf logs a line.
	Logf func(format string, args ...any)
}

// keeping is one run of a Keeper.
type keeping struct {
	*Keeper
	clock    Clock
	status   *record.Status      // as last read or written
	replicas []Observed          // as last seen
	seen     map[string]Observed // by replica, for the pods that go away
	gone     int32               // their restarts, not yet written
	departed []Observed          // their last records, not yet written
	last     time.Time           // of the last write
	failed   int                 // status writes failed in a row
	wakeAt   time.Time           // a derivation asked for (change.wake)
	writeAt  time.Time           // a write put off, or tried again
	timer    <-chan time.Time    // the one wake-up, at armed
	armed    time.Time
	logs     logKeeping
	enf      *enforcer   // nil without a Scaler
	sent     wanted      // what was last handed to enf
	gated    []string    // the types enf has gated
	gatedIn  chan string // a type enf gated
	savedFor int         // how many types of the teardown the logs were saved before
	checked  time.Time   // when the StatefulSets were last checked for drift
}

// Run keeps the job until ctx ends; then it takes one last step with the
// replicas as last seen (writing what it derives at once, flushTimeout at
// most), delivers its reports, and sets the targets not yet met.
func (k *Keeper) Run(ctx context.Context) {
	kp := &keeping{Keeper: k, clock: k.Clock, seen: map[string]Observed{}, gatedIn: make(chan string, 16)}
	if kp.clock == nil {
		kp.clock = RealClock{}
	}
	kp.logs = logKeeping{store: k.Logs, clock: kp.clock, interval: k.interval(), logf: k.Logf, tails: map[string]keptTail{}}
	if k.Scaler != nil {
		kp.enf = newEnforcer(k.Scaler, KeeperType, kp.clock, k.Logf, func(note string) {
			k.Reporter.Report(Report{Events: []Event{{Type: "Warning", Reason: ReasonTeardownFailed, Action: "Teardown", Note: note}}})
		}, func(t string) { kp.gatedIn <- t })
		ectx, stop := context.WithCancel(context.Background())
		enforced := make(chan struct{})
		go func() {
			defer close(enforced)
			kp.enf.run(ectx)
		}()
		defer func() { stop(); <-enforced }()
	}
	statuses := k.Store.Watch(ctx)
	synced, final := false, false
	for !final {
		sctx := ctx
		select {
		case s, ok := <-statuses:
			if !ok {
				statuses = nil
				continue
			}
			kp.status = s
		case <-k.Replicas.Changed():
			kp.observe(k.Replicas.Replicas())
			synced = true
		case <-kp.neighboursChanged():
		case <-kp.timer:
			kp.timer = nil
		case r := <-kp.logs.inflight:
			kp.logs.landed(r)
		case t := <-kp.gatedIn:
			kp.gated = append(kp.gated, t)
		case <-ctx.Done():
			// The last step, under a context of its own.
			final = true
			var cancel context.CancelFunc
			sctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
			defer cancel()
			synced = kp.lastLook(sctx, synced)
		}
		kp.step(sctx, synced, final)
	}
	kp.flush(ctx)
}

// lastLook takes, as the keeper ends, what came with the end: select
// chose it at random among what was ready, so a change of the replicas
// counts, and the status is read if it never came. It returns whether
// the replicas have been read.
func (kp *keeping) lastLook(ctx context.Context, synced bool) bool {
	select {
	case <-kp.Replicas.Changed():
		synced = true
	default:
	}
	if synced {
		kp.observe(kp.Replicas.Replicas())
		if kp.status == nil {
			if s, err := kp.Store.Get(ctx); err == nil {
				kp.status = s
			}
		}
	}
	return synced
}

// step is the keeper's reconcile, once the status is known: derive the
// status from the replicas (once they have been read) and write it, save
// the replicas' last words, make the cluster match the status, and arm
// the one timer for the earliest time any of them asked for. The last
// step (final, as the keeper ends) writes what it derives at once, saves
// every word, and decides no resize.
func (kp *keeping) step(ctx context.Context, synced, final bool) {
	if kp.status != nil {
		if synced {
			kp.sync(ctx, final)
			kp.logs.save(ctx, final)
		}
		kp.enforce(ctx)
	}
	if !final {
		kp.arm()
	}
}

// arm sets the one timer to the earliest time a derivation asked for (a
// deadline, a grace, an elastic decision), a write or a save of the logs
// was put off to, or is to be tried again at; none: no timer.
func (kp *keeping) arm() {
	at := earliest(kp.wakeAt, kp.writeAt, kp.logs.next())
	switch {
	case at.IsZero():
		kp.timer = nil
	case kp.timer == nil || !at.Equal(kp.armed):
		kp.armed, kp.timer = at, kp.clock.After(max(at.Sub(kp.clock.Now()), 0))
	}
}

// observe takes the replicas as now seen; the restarts of pods that went
// away (or were replaced) since the last look are counted as gone, by
// their last records, which may have come with their deletions.
func (kp *keeping) observe(obs []Observed) {
	departed := kp.Replicas.Departed()
	for _, d := range departed {
		if before, ok := kp.seen[d.Ref.String()]; ok && before.Pod == d.Pod {
			kp.seen[d.Ref.String()] = d
		}
	}
	now := make(map[string]Observed, len(obs))
	for _, o := range obs {
		now[o.Ref.String()] = o
	}
	for ref, before := range kp.seen {
		if o, ok := now[ref]; !ok || o.Pod != before.Pod {
			g := int32(0)
			if kp.status != nil {
				g = kp.status.RestartGrants[ref]
			}
			kp.gone += max(before.Restarts, g)
		}
	}
	kp.seen, kp.replicas = now, obs
	kp.departed = append(kp.departed, departed...)
	kp.logs.observe(departed)
	kp.logs.observe(obs)
}

// observation is what derive takes: the replicas as seen, and the elastic
// pods around an elastic job, but in the last step (final), which
// resizes nothing.
func (kp *keeping) observation(final bool) observation {
	o := observation{replicas: kp.replicas, gone: kp.gone, departed: kp.departed, gated: kp.gated, now: kp.clock.Now()}
	if n := kp.neighbours(); n != nil && !final {
		o.elastic = &elasticView{pods: n.Pods(), activity: n.Activity()}
	}
	return o
}

// sync writes the status derived from the replicas if it differs from the
// one known: at once if it starts or ends the job, grants restarts,
// releases replicas or resizes the job (or force), else no sooner than
// WriteInterval after the last write.
func (kp *keeping) sync(ctx context.Context, force bool) {
	o := kp.observation(force)
	next, ch := kp.Job.derive(kp.status, o)
	kp.wakeAt, kp.writeAt = ch.wake, time.Time{}
	if next.Equal(kp.status) {
		return
	}
	interval := kp.interval()
	if !ch.urgent() && !force && interval > 0 && o.now.Before(kp.last.Add(interval)) {
		kp.writeAt = kp.last.Add(interval)
		return
	}
	var done change
	wake := ch.wake
	wctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	written, err := kp.Store.Update(wctx, func(s *record.Status) error {
		n, ch := kp.Job.derive(s, o)
		wake, done = ch.wake, change{}
		if n.Equal(s) {
			return record.ErrNoChange
		}
		*s, done = *n, ch
		return nil
	})
	if err != nil {
		kp.failed++
		kp.Logf("write the job's status: %v; trying again", err)
		kp.writeAt = kp.clock.Now().Add(max(interval, kube.DefaultRetry.Delay(kp.failed, err)))
		return
	}
	kp.failed = 0
	kp.status, kp.gone, kp.departed, kp.last, kp.wakeAt = written, 0, nil, o.now, wake
	if len(done.events) > 0 {
		kp.Reporter.Report(Report{Events: done.events})
	}
	for _, note := range done.notes {
		kp.Logf("%s", note)
	}
}

// interval is the least time between two writes (WriteInterval).
func (k *Keeper) interval() time.Duration {
	if k.WriteInterval == 0 {
		return max(DefaultWriteInterval, time.Second*time.Duration(k.Job.total())/StatusFanOut)
	}
	return k.WriteInterval
}

// flush delivers the queued reports, waiting flushTimeout at most.
func (kp *keeping) flush(ctx context.Context) { flush(ctx, kp.Logf, kp.Reporter) }

// flush delivers the queued reports of rep, waiting flushTimeout at most.
func flush(ctx context.Context, logf func(string, ...any), rep Reporter) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
	defer cancel()
	if err := rep.Flush(ctx); err != nil {
		logf("deliver reports: %v", err)
	}
}

// DeliverLast delivers the queued reports of rep before the pod the job
// gave back ends with this process (Complete): the replica's last record
// must be on the pod first, since the keeper counts the replica from
// there, and a pod that ended without it is made again for a replica
// taken to have not finished, which trains again. So it waits as long as
// that takes (an API server unreachable, or refusing with 429s under
// load), until ctx ends; then flushTimeout more, as flush.
func DeliverLast(ctx context.Context, logf func(string, ...any), rep Reporter) {
	if err := rep.Flush(ctx); err == nil {
		return
	}
	flush(ctx, logf, rep)
}
