package supervise

import (
	"context"
	"time"

	"github.com/tfgen/tfgen/pkg/record"
)

// RunTTL stops every replica of the job once the ended job's TTL after
// finishing has passed, if cfg's replica is the one to, and returns when
// ctx ends: wrap mode's sidecar runs it for the Supervisor in the training
// container, which holds no API rights.
func RunTTL(ctx context.Context, cfg *Config, store record.Store, rep Reporter, td Teardown) {
	jobs := store.Watch(ctx)
	var ttl <-chan time.Time
	armed := false
	for {
		select {
		case <-ctx.Done():
			return
		case st, ok := <-jobs:
			if !ok {
				return
			}
			if !armed {
				ttl, armed = ttlTimer(cfg, st, RealClock{})
			}
		case <-ttl:
			ttl = nil
			expireTTL(ctx, cfg, rep, td)
		}
	}
}

// ttlTimer fires when the ended job's TTL after finishing has passed, if
// cfg's replica is the one to act on it; armed reports whether a timer
// was set.
func ttlTimer(cfg *Config, s *record.Status, clock Clock) (fire <-chan time.Time, armed bool) {
	if cfg.TTLAfterFinished == nil || s == nil || !s.Ended() || s.CompletionTime == nil || len(cfg.Layout.Roles) == 0 {
		return nil, false
	}
	if ref, ok := cfg.ttlRunner(s); !ok || ref != cfg.Self {
		return nil, true
	}
	at := s.CompletionTime.Add(*cfg.TTLAfterFinished)
	return clock.After(max(at.Sub(clock.Now()), 0)), true
}

// expireTTL stops every replica of the job.
func expireTTL(ctx context.Context, cfg *Config, rep Reporter, td Teardown) {
	rep.Report(Report{Events: []Event{{Type: "Normal", Reason: ReasonTTLExpired, Action: "Teardown", Note: "the job's TTL after finishing has passed"}}})
	stopTypes(ctx, cfg, rep, td, cfg.Types(cfg.Self.Type), "TTL after finished")
}
