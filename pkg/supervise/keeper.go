package supervise

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tfgen/tfgen/pkg/record"
)

// DefaultWriteInterval is the least time between two writes of the
// job's status that neither end the job nor grant restarts: replicas
// starting, or finishing without ending the job, are written together.
const DefaultWriteInterval = time.Second

// storeTimeout bounds one write of the status (retried on conflicts and
// transient errors inside); the keeper tries again later.
const storeTimeout = time.Minute

// flushTimeout bounds the wait for reports to be delivered.
const flushTimeout = 10 * time.Second

// Keeper keeps a job's status, the one writer of the job-level facts:
// it follows every replica's record on its pod (Replicas) and the job's
// status (Store), derives the status from them (Config.derive) whenever
// either changes, writes it when it differs, and when the job ends emits
// the job's Events and tears the job down by its clean pod policy. A
// job has one keeper, in the supervisor of Config.Keeper() (or in `tfgen
// run`). Since every fact it derives from lives on the pods and in the
// status, a keeper that restarts picks up where it was.
type Keeper struct {
	// Config of the job; Self is the replica it runs beside, if any.
	Config *Config
	// Replicas is its view of the job's replicas.
	Replicas ReplicaFeed
	// Store holds the job's status.
	Store record.Store
	// Reporter publishes the job's Events (about the keeper's pod).
	Reporter Reporter
	// Teardown stops replicas when the job ends; nil stops nothing.
	Teardown Teardown
	// Logs keeps the end of the output of replicas that failed or were
	// stopped, gathered from their pods, for when the pods are gone; nil
	// keeps none.
	Logs LogStore
	// Clock; nil is the system clock.
	Clock Clock
	// WriteInterval; zero is DefaultWriteInterval, a negative one writes
	// every change at once.
	WriteInterval time.Duration
}

// keeping is one run of a Keeper.
type keeping struct {
	*Keeper
	clock    Clock
	status   *record.Status      // as last read or written
	replicas []Observed          // as last seen
	seen     map[string]Observed // by replica, for the pods that go away
	gone     int32               // their restarts, not yet written
	last     time.Time           // of the last write
	later    <-chan time.Time    // a write put off
	deadline <-chan time.Time
	wake     time.Time // when to derive again, by the last derivation
	armedAt  time.Time // the deadline armed
	logs     logKeeping
	own      ownTeardown
}

// ownTeardown is the keeper's own type, torn down last: once the other
// replicas going down have said how they ended (their tails with it), or
// at the latest logWait after they were stopped.
type ownTeardown struct {
	pending bool
	down    []string         // the types whose replicas it waits for
	by      <-chan time.Time // the wait's end
}

// logWait bounds how long the keeper's own type waits, at teardown, for
// the other replicas going down to report their last exit.
const logWait = 30 * time.Second

// Run keeps the job's status until ctx ends; then it derives the status
// once more from the replicas as last seen, writes it if it changed, and
// delivers its reports.
func (k *Keeper) Run(ctx context.Context) {
	kp := &keeping{Keeper: k, clock: k.Clock, seen: map[string]Observed{}}
	if kp.clock == nil {
		kp.clock = RealClock{}
	}
	kp.logs = logKeeping{store: k.Logs, clock: kp.clock, interval: k.interval(), logf: k.Config.Logf, tails: map[string]keptTail{}}
	statuses := k.Store.Watch(ctx)
	synced := false
	for {
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
		case <-kp.deadline:
			kp.deadline = nil
		case <-kp.later:
			kp.later = nil
		case <-kp.logs.later:
			kp.logs.later = nil
		case r := <-kp.logs.inflight:
			kp.logs.landed(r)
		case <-kp.own.by:
			kp.own.by = nil
			kp.Config.Logf("teardown: replicas of %s still running after %v; stopping %s", strings.Join(kp.own.down, ", "), logWait, kp.Config.Keeper().Type)
			kp.stopOwn(ctx)
		case <-ctx.Done():
			if kp.status != nil {
				kp.observe(k.Replicas.Replicas())
				fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
				kp.sync(fctx, true)
				kp.logs.save(fctx, true)
				cancel()
			}
			flush(ctx, k.Config, k.Reporter)
			return
		}
		if kp.status != nil && synced {
			kp.sync(ctx, false)
			kp.armDeadline()
			kp.logs.save(ctx, false)
			if kp.own.pending && kp.settled(kp.own.down) {
				kp.stopOwn(ctx)
			}
		}
	}
}

// observe takes the replicas as now seen; the restarts of pods that went
// away (or were replaced) since the last look are counted as gone.
func (kp *keeping) observe(obs []Observed) {
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
	kp.logs.observe(obs)
}

// sync writes the status derived from the replicas if it differs from the
// one known: at once if it ends the job or grants restarts (or force),
// else no sooner than WriteInterval after the last write.
func (kp *keeping) sync(ctx context.Context, force bool) {
	now := kp.clock.Now()
	next, ch := kp.Config.derive(kp.status, kp.replicas, kp.gone, now)
	kp.wake = ch.wake
	if next.Equal(kp.status) {
		return
	}
	interval := kp.interval()
	if !ch.urgent() && !force && interval > 0 && now.Before(kp.last.Add(interval)) {
		if kp.later == nil {
			kp.later = kp.clock.After(kp.last.Add(interval).Sub(now))
		}
		return
	}
	var done change
	wctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	written, err := kp.Store.Update(wctx, func(s *record.Status) error {
		n, ch := kp.Config.derive(s, kp.replicas, kp.gone, now)
		if n.Equal(s) {
			done = change{}
			return record.ErrNoChange
		}
		*s, done = *n, ch
		return nil
	})
	if err != nil {
		kp.Config.Logf("write the job's status: %v; trying again", err)
		if kp.later == nil {
			kp.later = kp.clock.After(max(interval, time.Second))
		}
		return
	}
	kp.status, kp.gone, kp.last, kp.wake = written, 0, now, done.wake
	if len(done.events) > 0 {
		kp.Reporter.Report(Report{Events: done.events})
	}
	if done.ended || len(done.teardown) > 0 {
		kp.teardown(ctx, done.teardown)
	}
}

// interval is the least time between two writes (WriteInterval).
func (k *Keeper) interval() time.Duration {
	if k.WriteInterval == 0 {
		return DefaultWriteInterval
	}
	return k.WriteInterval
}

// armDeadline sets the timer to the next time the status may change with
// nothing else changing, as the last derivation said: the job's start time
// plus its active deadline, or the time the teardown settles by.
func (kp *keeping) armDeadline() {
	at := kp.wake
	if at.IsZero() {
		kp.deadline = nil
		return
	}
	if kp.deadline == nil || !at.Equal(kp.armedAt) {
		kp.armedAt = at
		kp.deadline = kp.clock.After(max(at.Sub(kp.clock.Now()), 0))
	}
}

// teardown scales types to zero, the keeper's own last. With logs kept,
// its own type waits (logWait at most) until every other replica going
// down has reported its last exit, so that the keeper, still there,
// saves their tails.
func (kp *keeping) teardown(ctx context.Context, types []string) {
	kp.logs.save(ctx, true)
	own := kp.Config.Keeper().Type
	others := slices.DeleteFunc(slices.Clone(types), func(t string) bool { return t == own })
	all := others
	if slices.Contains(types, own) {
		all = append(slices.Clip(others), own)
	}
	td := kp.Teardown
	if !announce(ctx, kp.Config, kp.Reporter, td != nil, all, "clean pod policy "+string(kp.Config.CleanPodPolicy)) || td == nil {
		return
	}
	if len(all) == len(others) || !kp.logs.keeping() {
		stopNow(ctx, kp.Config, kp.Reporter, td, all)
		return
	}
	stopNow(ctx, kp.Config, kp.Reporter, td, others)
	if sh, ok := td.(Shrinker); ok {
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), kp.Config.TeardownTimeout)
		if err := sh.Shrink(tctx, own, kp.Config.Keeper().Index+1); err != nil {
			kp.Config.Logf("teardown: %v", err)
		}
		cancel()
	}
	kp.own = ownTeardown{pending: true, down: all, by: kp.clock.After(logWait)}
	if kp.settled(kp.own.down) {
		kp.stopOwn(ctx)
	}
}

// settled reports whether every replica of types going down that was
// training has said how it ended (or its pod is gone); of the keeper's
// own type, those after the keeper, which Shrink stopped.
func (kp *keeping) settled(types []string) bool {
	self := kp.Config.Keeper()
	return !slices.ContainsFunc(kp.replicas, func(o Observed) bool {
		down := slices.Contains(types, o.Type) && (o.Type != self.Type || o.Index > self.Index)
		return down && o.State.Active() // a replica that never trained has nothing to say
	})
}

// stopOwn saves the tails and tears down the keeper's own type.
func (kp *keeping) stopOwn(ctx context.Context) {
	kp.own = ownTeardown{}
	kp.logs.save(ctx, true)
	stopNow(ctx, kp.Config, kp.Reporter, kp.Teardown, []string{kp.Config.Keeper().Type})
}

// stopTypes stops the replicas of types, reporting before it starts (it
// may stop the caller too).
func stopTypes(ctx context.Context, cfg *Config, rep Reporter, td Teardown, types []string, why string) {
	if announce(ctx, cfg, rep, td != nil, types, why) && td != nil {
		stopNow(ctx, cfg, rep, td, types)
	}
}

// announce logs which types stop and why and, with event, reports it as
// the job's Event; it reports whether any types stop.
func announce(ctx context.Context, cfg *Config, rep Reporter, event bool, types []string, why string) bool {
	if len(types) == 0 {
		cfg.Logf("job ended; nothing to stop (%s)", why)
		return false
	}
	note := fmt.Sprintf("stopping replica types %s (%s)", strings.Join(types, ", "), why)
	cfg.Logf("%s", note)
	if !event {
		return true
	}
	rep.Report(Report{Events: []Event{{Type: "Normal", Reason: ReasonTeardown, Action: "Teardown", Note: note}}})
	flush(ctx, cfg, rep)
	return true
}

// stopNow stops the replicas of types, reporting a failure.
func stopNow(ctx context.Context, cfg *Config, rep Reporter, td Teardown, types []string) {
	if len(types) == 0 || td == nil {
		return
	}
	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.TeardownTimeout)
	defer cancel()
	if err := td.Stop(tctx, types); err != nil {
		cfg.Logf("teardown: %v", err)
		rep.Report(Report{Events: []Event{{Type: "Warning", Reason: ReasonTeardownFailed, Action: "Teardown", Note: err.Error()}}})
		flush(ctx, cfg, rep)
	}
}

// flush delivers the queued reports, waiting at most a few seconds.
func flush(ctx context.Context, cfg *Config, rep Reporter) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
	defer cancel()
	if err := rep.Flush(ctx); err != nil {
		cfg.Logf("deliver reports: %v", err)
	}
}

// ttlRunner returns the replica that stops every replica once the ended
// job's TTL has passed: the keeper, unless its type was torn down, else
// replica 0 of the first type that was not; ok is false when every type
// was.
func (c *Config) ttlRunner(s *record.Status) (Ref, bool) {
	k := c.Keeper()
	if len(c.Layout.Roles) == 0 || !slices.Contains(s.Teardown, k.Type) {
		return k, true
	}
	for _, t := range c.Types("") {
		if !slices.Contains(s.Teardown, t) {
			return Ref{Type: t}, true
		}
	}
	return Ref{}, false
}
