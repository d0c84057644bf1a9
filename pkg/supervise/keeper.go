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
}

// Run keeps the job's status until ctx ends; then it derives the status
// once more from the replicas as last seen, writes it if it changed, and
// delivers its reports.
func (k *Keeper) Run(ctx context.Context) {
	kp := &keeping{Keeper: k, clock: k.Clock, seen: map[string]Observed{}}
	if kp.clock == nil {
		kp.clock = RealClock{}
	}
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
		case <-ctx.Done():
			if kp.status != nil {
				kp.observe(k.Replicas.Replicas())
				fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
				kp.sync(fctx, true)
				cancel()
			}
			flush(ctx, k.Config, k.Reporter)
			return
		}
		if kp.status != nil && synced {
			kp.sync(ctx, false)
			kp.armDeadline()
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
	interval := kp.WriteInterval
	if interval == 0 {
		interval = DefaultWriteInterval
	}
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

// teardown scales types to zero, the keeper's own last.
func (kp *keeping) teardown(ctx context.Context, types []string) {
	own := kp.Config.Keeper().Type
	types = append(slices.DeleteFunc(slices.Clone(types), func(t string) bool { return t == own }),
		slices.Collect(func(yield func(string) bool) {
			if slices.Contains(types, own) {
				yield(own)
			}
		})...)
	stopTypes(ctx, kp.Config, kp.Reporter, kp.Teardown, types, "clean pod policy "+string(kp.Config.CleanPodPolicy))
}

// stopTypes stops the replicas of types, reporting before it starts (it
// may stop the caller too).
func stopTypes(ctx context.Context, cfg *Config, rep Reporter, td Teardown, types []string, why string) {
	if len(types) == 0 {
		cfg.Logf("job ended; nothing to stop (%s)", why)
		return
	}
	note := fmt.Sprintf("stopping replica types %s (%s)", strings.Join(types, ", "), why)
	cfg.Logf("%s", note)
	if td == nil {
		return
	}
	rep.Report(Report{Events: []Event{{Type: "Normal", Reason: ReasonTeardown, Action: "Teardown", Note: note}}})
	flush(ctx, cfg, rep)
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
