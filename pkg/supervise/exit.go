package supervise

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tfgen/tfgen/pkg/record"
)

func metaTime(t time.Time) record.Time { return record.NewTime(t) }

// outcome is what follows one exit.
type outcome struct {
	restart   bool   // start the training process again
	duplicate bool   // this exit was already counted
	ended     bool   // this exit ended the job
	reason    string // the Result's reason
	status    *record.Status
}

// exited records an exit and decides what follows: a restart, or the end
// of this replica (and perhaps of the job). id, when not empty, identifies
// the exit so that it counts once (sidecar mode).
func (r *replica) exited(ctx context.Context, ex Exit, id string) outcome {
	now := r.clock.Now()
	cfg, self := r.cfg, r.cfg.Self
	code := int32(ex.Code)
	wantRestart := cfg.Policy.ShouldRestart(ex.Code)
	late := r.pastDeadline()
	var o outcome
	var events []Event
	s := r.update(ctx, func(s *record.Status) error {
		o, events = outcome{}, nil
		e := s.Replica(self.Type, self.Index)
		if id != "" && !exitAfter(id, e.LastExitID) {
			o.duplicate = true
			return record.ErrNoChange
		}
		e.LastExitID, e.LastExitCode, e.Reason, e.UpdateTime = id, &code, ex.Reason, metaTime(now)
		ended := s.Ended()
		fail := func(reason, note string) {
			e.State, o.reason = record.StateFailed, reason
			events = append(events, Event{Type: "Warning", Reason: reason, Action: "Fail", Note: note})
			s.Finish(false, reason, note, now)
		}
		switch {
		case ended:
			e.State, o.reason = record.StateSucceeded, ex.Reason
			if ex.Code != 0 {
				e.State = record.StateStopped
			}
		case late:
			fail(ReasonDeadlineExceeded, fmt.Sprintf("the job ran past its active deadline of %v", cfg.ActiveDeadline))
			// Cut short by the deadline rather than failed by itself: clean
			// pod policy Running stops its type like any running replica's.
			e.State = record.StateStopped
		case wantRestart && cfg.Policy.MaxRestarts != nil && e.Restarts >= *cfg.Policy.MaxRestarts && ex.Code != 0:
			fail(ReasonReplicaFailed, fmt.Sprintf("replica %s exited with code %d and has used its %d restarts (%s)",
				self, ex.Code, *cfg.Policy.MaxRestarts, ReasonMaxRestartsExceeded))
		case wantRestart && cfg.BackoffLimit != nil && s.Restarts >= *cfg.BackoffLimit && ex.Code != 0:
			fail(ReasonBackoffLimitExceeded, fmt.Sprintf("replica %s exited with code %d and the job has used its backoff limit of %d restarts",
				self, ex.Code, *cfg.BackoffLimit))
		case wantRestart && withinLimits(cfg, e, s):
			e.Restarts++
			s.Restarts++
			e.State, o.restart, o.reason = record.StateRestarting, true, ReasonReplicaRestarting
			note := fmt.Sprintf("replica %s restarts after exit code %d (restart %d)", self, ex.Code, e.Restarts)
			events = append(events, Event{Type: "Normal", Reason: ReasonReplicaRestarting, Action: "Restart", Note: note})
			s.SetCondition(record.JobRestarting, "JobRestarting", note, now)
		case ex.Code == 0:
			e.State, o.reason = record.StateSucceeded, ex.Reason
			if cfg.JobSucceeded(s) {
				note := fmt.Sprintf("replica %s succeeded", self)
				events = append(events, Event{Type: "Normal", Reason: ReasonJobSucceeded, Action: "Finish", Note: "the job succeeded: " + note})
				s.Finish(true, ReasonJobSucceeded, note, now)
			}
		default:
			fail(ReasonReplicaFailed, fmt.Sprintf("replica %s exited with code %d, which its restart policy %s does not retry",
				self, ex.Code, cfg.Policy.Restart))
		}
		if !ended && s.IsTrue(record.JobFailed) {
			events = append(events, Event{Type: "Warning", Reason: ReasonJobFailed, Action: "Finish", Note: s.Condition(record.JobFailed).Message})
		}
		o.ended = !ended && s.Ended()
		return nil
	})
	o.status = s
	if o.duplicate {
		return o
	}
	exitEvent := Event{Type: "Normal", Reason: ReasonReplicaExited, Action: "Exit",
		Note: fmt.Sprintf("replica %s exited with code %d (%s)", self, ex.Code, ex.Reason)}
	if ex.Code != 0 {
		exitEvent.Type = "Warning"
	}
	e := s.Lookup(self.Type, self.Index)
	r.rep.Report(Report{State: string(e.State), Restarts: r.restarts, ExitCode: &code, Reason: o.reason,
		Events: append([]Event{exitEvent}, events...)})
	return o
}

// withinLimits: maxRestarts and backoffLimit leave a restart.
func withinLimits(cfg *Config, e *record.Replica, s *record.Status) bool {
	return (cfg.Policy.MaxRestarts == nil || e.Restarts < *cfg.Policy.MaxRestarts) &&
		(cfg.BackoffLimit == nil || s.Restarts < *cfg.BackoffLimit)
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

// endByDeadline fails the job for its deadline unless it has ended.
func (r *replica) endByDeadline(ctx context.Context) outcome {
	now := r.clock.Now()
	note := fmt.Sprintf("the job ran past its active deadline of %v", r.cfg.ActiveDeadline)
	var o outcome
	s := r.update(ctx, func(s *record.Status) error {
		o = outcome{reason: ReasonDeadlineExceeded}
		if s.Ended() {
			return record.ErrNoChange
		}
		s.Finish(false, ReasonDeadlineExceeded, note, now)
		o.ended = true
		return nil
	})
	o.status = s
	if o.ended {
		r.rep.Report(Report{State: string(record.StateFailed), Restarts: r.restarts, ExitCode: r.lastExitCode(), Reason: ReasonDeadlineExceeded,
			Events: []Event{
				{Type: "Warning", Reason: ReasonDeadlineExceeded, Action: "Fail", Note: note},
				{Type: "Warning", Reason: ReasonJobFailed, Action: "Finish", Note: note},
			}})
	}
	return o
}

// finish delivers the final reports and, when this replica ended the job,
// tears the job down.
func (r *replica) finish(ctx context.Context, o outcome) {
	r.flush(ctx)
	if o.ended {
		r.teardown(ctx, r.cfg.TeardownTypes(o.status), "clean pod policy "+string(r.cfg.CleanPodPolicy))
	}
}

// teardown stops the replicas of types, reporting before it starts (it may
// stop this replica too).
func (r *replica) teardown(ctx context.Context, types []string, why string) {
	if r.td == nil {
		return
	}
	if len(types) == 0 {
		r.cfg.Logf("job ended; nothing to stop (%s)", why)
		return
	}
	note := fmt.Sprintf("stopping replica types %s (%s)", strings.Join(types, ", "), why)
	r.cfg.Logf("%s", note)
	r.rep.Report(Report{State: r.state(), Restarts: r.restarts, ExitCode: r.lastExitCode(), Reason: ReasonTeardown,
		Events: []Event{{Type: "Normal", Reason: ReasonTeardown, Action: "Teardown", Note: note}}})
	r.flush(ctx)
	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.cfg.TeardownTimeout)
	defer cancel()
	if err := r.td.Stop(tctx, types); err != nil {
		r.cfg.Logf("teardown: %v", err)
		r.rep.Report(Report{State: r.state(), Restarts: r.restarts, ExitCode: r.lastExitCode(), Reason: ReasonTeardownFailed,
			Events: []Event{{Type: "Warning", Reason: ReasonTeardownFailed, Action: "Teardown", Note: err.Error()}}})
		r.flush(ctx)
	}
}
