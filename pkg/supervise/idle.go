package supervise

import (
	"context"
	"os"
	"syscall"
	"time"
)

// isStop reports whether sig asks the supervisor to stop: SIGTERM (the pod
// is going away) or SIGINT.
func isStop(sig os.Signal) bool { return sig == syscall.SIGTERM || sig == syscall.SIGINT }

// idle keeps the replica from training: it reports why, then waits for a
// stop signal or the end of ctx. When the job has ended and a TTL is set,
// it stops every replica once the TTL has passed since the job's
// completion.
func (r *replica) idle(ctx context.Context, why string, signals <-chan os.Signal) Result {
	r.cfg.Logf("not training: %s; idle until stopped", why)
	r.rep.Report(Report{State: StateIdle, Restarts: r.restarts, ExitCode: r.lastExitCode(), Reason: ReasonReplicaIdle,
		Events: []Event{{Type: "Normal", Reason: ReasonReplicaIdle, Action: "Idle", Note: "not training: " + why}}})
	expire := r.ttlTimer()
	for {
		select {
		case <-ctx.Done():
			r.flush(ctx)
			return Result{Reason: StateIdle, Restarts: r.restarts}
		case sig := <-signals:
			if isStop(sig) {
				r.flush(ctx)
				return Result{Reason: StateIdle, Restarts: r.restarts}
			}
		case <-expire:
			expire = nil
			var all []string
			for _, role := range r.cfg.Layout.Roles {
				if role.Type != r.cfg.Self.Type && role.Replicas > 0 {
					all = append(all, role.Type)
				}
			}
			all = append(all, r.cfg.Self.Type)
			r.rep.Report(Report{State: StateIdle, Restarts: r.restarts, Reason: ReasonTTLExpired,
				Events: []Event{{Type: "Normal", Reason: ReasonTTLExpired, Action: "Teardown", Note: "the job's TTL after finishing has passed"}}})
			r.teardown(ctx, all, "TTL after finished")
		}
	}
}

// ttlTimer fires when the job's TTL after finishing has passed; nil when
// the job has not ended or has no TTL.
func (r *replica) ttlTimer() <-chan time.Time {
	s := r.last
	if r.cfg.TTLAfterFinished == nil || s == nil || !s.Ended() || s.CompletionTime == nil || len(r.cfg.Layout.Roles) == 0 {
		return nil
	}
	at := s.CompletionTime.Add(*r.cfg.TTLAfterFinished)
	return r.clock.After(max(at.Sub(r.clock.Now()), 0))
}
