package supervise

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tfgen/tfgen/pkg/record"
)

// storeTimeout bounds one record update (retried on conflicts and
// transient errors), so that an unreachable API server delays a restart by
// at most this long; supervision then goes on with local counts.
const storeTimeout = time.Minute

// flushTimeout bounds the wait for reports to be delivered.
const flushTimeout = 10 * time.Second

// replica is what both drivers share: this replica's entry in the record,
// and the decisions that follow each exit.
type replica struct {
	cfg   *Config
	store record.Store
	rep   Reporter
	td    Teardown
	clock Clock

	last     *record.Status // the last status read or written
	restarts int32          // this replica's restarts, from the record
	start    time.Time      // the job's start time, from the record
}

// update applies mutate to the record. When the store fails, supervision
// goes on: mutate is applied to the last status known, and logged.
func (r *replica) update(ctx context.Context, mutate func(*record.Status) error) *record.Status {
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	s, err := r.store.Update(ctx, mutate)
	if err != nil {
		r.cfg.Logf("%v; going on with the status known locally", err)
		s = r.last.DeepCopy()
		if s == nil {
			s = &record.Status{}
		}
		if err := mutate(s); err != nil && !errors.Is(err, record.ErrNoChange) {
			r.cfg.Logf("update job status: %v", err)
		}
		s.Recount()
	}
	r.last = s
	if s.StartTime != nil {
		r.start = s.StartTime.Time
	}
	if e := s.Lookup(r.cfg.Self.Type, r.cfg.Self.Index); e != nil {
		r.restarts = e.Restarts
	}
	return s
}

// begin records the replica as running, and returns why it must idle
// instead ("" when it may train): the job has ended, or this replica has
// already succeeded.
func (r *replica) begin(ctx context.Context) string {
	now := r.clock.Now()
	self := r.cfg.Self
	var why string
	r.update(ctx, func(s *record.Status) error {
		why = ""
		switch e := s.Lookup(self.Type, self.Index); {
		case s.Ended():
			why = "the job has already ended (" + endReason(s) + ")"
		case e != nil && e.State == record.StateSucceeded:
			why = "replica " + self.String() + " has already succeeded"
		}
		if why != "" {
			return record.ErrNoChange
		}
		s.Start(now)
		r.markRunning(s, now)
		return nil
	})
	if why == "" {
		r.rep.Report(Report{State: string(record.StateRunning), Restarts: r.restarts, Reason: "Started"})
	}
	return why
}

func (r *replica) markRunning(s *record.Status, now time.Time) {
	e := s.Replica(r.cfg.Self.Type, r.cfg.Self.Index)
	e.State, e.Reason, e.UpdateTime = record.StateRunning, "Started", metaTime(now)
	s.SetCondition(record.JobRunning, "JobRunning", "replica "+r.cfg.Self.String()+" is running", now)
}

// running records that the training process runs again after a restart.
func (r *replica) running(ctx context.Context) {
	now := r.clock.Now()
	r.update(ctx, func(s *record.Status) error {
		if e := s.Lookup(r.cfg.Self.Type, r.cfg.Self.Index); s.Ended() || (e != nil && e.State == record.StateRunning) {
			return record.ErrNoChange
		}
		r.markRunning(s, now)
		return nil
	})
	r.rep.Report(Report{State: string(record.StateRunning), Restarts: r.restarts, ExitCode: r.lastExitCode(), Reason: "Restarted"})
}

// stopped records that the training process was stopped from outside
// (SIGTERM: its pod is going away), and returns the final result.
func (r *replica) stopped(ctx context.Context, ex Exit) Result {
	now := r.clock.Now()
	code := int32(ex.Code)
	r.update(ctx, func(s *record.Status) error {
		if s.Ended() {
			return record.ErrNoChange
		}
		e := s.Replica(r.cfg.Self.Type, r.cfg.Self.Index)
		e.State, e.Reason, e.LastExitCode, e.UpdateTime = record.StateStopped, "Terminated", &code, metaTime(now)
		return nil
	})
	note := fmt.Sprintf("replica %s stopped from outside (exit code %d)", r.cfg.Self, ex.Code)
	r.rep.Report(Report{State: string(record.StateStopped), Restarts: r.restarts, ExitCode: &code, Reason: "Terminated",
		Events: []Event{{Type: "Normal", Reason: ReasonReplicaStopped, Action: "Stop", Note: note}}})
	r.flush(ctx)
	return Result{ExitCode: ex.Code, Reason: string(record.StateStopped), Restarts: r.restarts}
}

// pastDeadline reports whether the job's active deadline has passed.
func (r *replica) pastDeadline() bool {
	return r.cfg.ActiveDeadline > 0 && !r.clock.Now().Before(r.start.Add(r.cfg.ActiveDeadline))
}

// deadlineTimer fires at the job's active deadline; nil when there is none.
func (r *replica) deadlineTimer() <-chan time.Time {
	if r.cfg.ActiveDeadline <= 0 {
		return nil
	}
	return r.clock.After(max(r.start.Add(r.cfg.ActiveDeadline).Sub(r.clock.Now()), 0))
}

func (r *replica) lastExitCode() *int32 {
	if r.last == nil {
		return nil
	}
	if e := r.last.Lookup(r.cfg.Self.Type, r.cfg.Self.Index); e != nil {
		return e.LastExitCode
	}
	return nil
}

// state is this replica's state in the last status known.
func (r *replica) state() string {
	if r.last != nil {
		if e := r.last.Lookup(r.cfg.Self.Type, r.cfg.Self.Index); e != nil {
			return string(e.State)
		}
	}
	return ""
}

// flush delivers the queued reports, waiting at most a few seconds.
func (r *replica) flush(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
	defer cancel()
	if err := r.rep.Flush(ctx); err != nil {
		r.cfg.Logf("deliver reports: %v", err)
	}
}

func endReason(s *record.Status) string {
	for _, t := range []record.ConditionType{record.JobSucceeded, record.JobFailed} {
		if c := s.Condition(t); c != nil && c.Status == record.ConditionTrue {
			return string(t) + ": " + c.Reason
		}
	}
	return "running"
}
