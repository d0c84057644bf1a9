package supervise

import (
	"fmt"
	"slices"
	"time"

	"github.com/tfgen/tfgen/pkg/record"
)

// replica is one replica's own state machine: its record, which only it
// writes (on its pod), and the job's status as last seen. Both drivers,
// Supervisor and Watcher, tell it what happened and carry out what it
// decides; it decides from nothing else, so it is tested without
// processes or an API server.
type replica struct {
	cfg   *Config
	rep   Reporter
	clock Clock
	rec   record.Replica // as last reported
	job   *record.Status // as last seen; nil before the first
}

// hold says why the replica must not train now ("" when it may), and
// whether that is final: the job ended or the replica finished, as
// opposed to a job suspended for now.
func (r *replica) hold() (why string, final bool) {
	self := r.cfg.Self
	switch {
	case r.job.Ended():
		return "the job has ended (" + endReason(r.job) + ")", true
	case r.rec.State == record.StateSucceeded || r.job.HasSucceeded(self.Type, self.Index):
		return "replica " + self.String() + " has already succeeded", true
	case r.rec.State == record.StateFailed || r.job.HasFailed(self.Type, self.Index):
		return "replica " + self.String() + " has failed", true
	case r.pastDeadline():
		return "the job ran past its active deadline", true
	case r.job.IsTrue(record.JobSuspended):
		return "the job is suspended", false
	case self.Index >= r.cfg.Job.at(r.job).replicas(self.Type):
		// Its pod outlives a resize down, or comes before one up.
		return fmt.Sprintf("replica %s is not among the job's %d %s replicas", self, r.cfg.Job.at(r.job).replicas(self.Type), self.Type), false
	}
	return "", false
}

// released reports whether the job gave back this replica's pod
// (Config.GivenBack).
func (r *replica) released() bool { return r.cfg.GivenBack(r.job, &r.rec) }

// pastDeadline reports whether the job's active deadline, counted from
// its recorded start, has passed (the keeper then fails the job).
func (r *replica) pastDeadline() bool {
	d := r.cfg.Job.ActiveDeadline
	return d > 0 && r.job.StartTime != nil && !r.clock.Now().Before(r.job.StartTime.Add(d))
}

// stopFor says why a running training process must stop now: the job
// ended and its clean pod policy stops this type, or the job is
// suspended; "" when it goes on.
func (r *replica) stopFor() string {
	switch {
	case r.job.Ended() && slices.Contains(r.job.Stop, r.cfg.Self.Type):
		return ReasonJobEnded
	case !r.job.Ended() && r.job.IsTrue(record.JobSuspended):
		return ReasonSuspended
	case !r.job.Ended() && r.jobRestart():
		return ReasonJobRestart
	}
	return ""
}

// jobRestart reports whether, under restart scope Job, the job has
// restarted since this replica's training process last started.
func (r *replica) jobRestart() bool {
	return r.cfg.Job.RestartScope == RestartScopeJob && r.job.RestartGeneration > r.rec.Generation
}

// granted reports whether the replica may restart: there is no
// backoffLimit, or the keeper granted its next restart.
func (r *replica) granted() bool {
	if r.cfg.Job.RestartScope == RestartScopeJob {
		return r.jobRestart() // every replica restarts together
	}
	return r.cfg.Job.BackoffLimit == nil || r.job.RestartGrants[r.cfg.Self.String()] > r.rec.Restarts
}

// report publishes the record with events.
func (r *replica) report(events ...Event) {
	r.rep.Report(Report{Replica: r.rec, Events: events})
}

// FirstStartDefer is how long a replica's first start waits to be
// reported: the keeper learns it from the pod's status at once (its phase
// Running, with no record yet: podwatch), so the record is written once,
// at the end, for a replica that ends sooner; a longer one has it (and
// the Kubeflow labels of its pod) written then.
const FirstStartDefer = 15 * time.Second

// running records that the training process runs, again after a restart
// or a resize. A first start, or one after a resize, is reported at
// leisure (Spread): every replica starts at once, and nothing waits for
// it; a restart is not (the keeper counts it). The very first start of a
// job that has not restarted waits FirstStartDefer besides.
func (r *replica) running(restart, resized bool) {
	own := r.rec.Reason != ReasonJobRestart // a restart after its own failure, not another's
	first := r.rec.State == "" && !restart && !resized && (r.job == nil || r.job.RestartGeneration == 0)
	r.rec.State, r.rec.Reason, r.rec.Message = record.StateRunning, "Started", ""
	rep := Report{Spread: r.cfg.Job.spread()}
	if first {
		rep.Defer = FirstStartDefer
	}
	if resized {
		r.rec.Reason = ReasonResized
	}
	if restart {
		if own {
			r.rec.Restarts++
		}
		r.rec.Reason, rep.Spread = "Restarted", 0
	}
	if r.job != nil {
		r.rec.Generation = r.job.RestartGeneration
	}
	rep.Replica = r.rec
	r.rep.Report(rep)
}

// idle records that the replica does not train, and why.
func (r *replica) idle(why string) {
	r.cfg.Logf("not training: %s; idle until stopped", why)
	r.rec.State, r.rec.Reason = record.StateIdle, ReasonReplicaIdle
	r.report(Event{Type: "Normal", Reason: ReasonReplicaIdle, Action: "Idle", Note: "not training: " + why})
}

// exited records exit ex of the training process and decides what
// follows: a restart (true), or the end of this run of it. stopped, when
// not empty, says why the supervisor stopped the process: it is then
// Stopped whatever its exit code, but for the job's end, after which an
// exit 0 is a success. A process that ends by itself after the job ended
// is not restarted, and is Succeeded or Failed by its code.
//
// Events are for what needs a look: failures and restarts. A success, or
// a stop because the job ended, is on the replica's pod and in the job's
// own Event; a thousand replicas do not each say it again.
func (r *replica) exited(ex Exit, stopped string) (restart bool) {
	self, pol := r.cfg.Self, &r.cfg.Policy
	code := int32(ex.Code)
	r.rec.LastExitCode, r.rec.Reason, r.rec.Message = &code, ex.Reason, ""
	if r.rec.LastExitTime = ex.At; ex.At.IsZero() {
		r.rec.LastExitTime = r.clock.Now()
	}
	exitNote := fmt.Sprintf("replica %s exited with code %d (%s)", self, ex.Code, ex.Reason)
	var events []Event
	fail := func(reason, note string) {
		r.rec.State, r.rec.Reason, r.rec.Message = record.StateFailed, reason, note
		events = append(events, Event{Type: "Warning", Reason: ReasonReplicaExited, Action: "Exit", Note: exitNote},
			Event{Type: "Warning", Reason: ReasonReplicaFailed, Action: "Fail", Note: note})
	}
	switch {
	case stopped == ReasonResized:
		// Counted nowhere: the replica runs on at once, with its new
		// cluster environment (running reports it).
		r.rec.Message = fmt.Sprintf("replica %s restarts with the job's new layout (resize %d)", self, r.job.LayoutGeneration)
		if ex.Tail != "" {
			r.rec.LogTail = record.Tail(ex.Tail)
		}
		return true
	case stopped == ReasonJobRestart:
		r.rec.State, r.rec.Reason, restart = record.StateRestarting, ReasonJobRestart, true
		r.rec.Message = fmt.Sprintf("replica %s stopped to restart with the job (job restart %d)", self, r.job.RestartGeneration)
	case stopped == ReasonJobEnded && ex.Code == 0:
		// Its work was done as the job ended (it raced the stop, or
		// ended gracefully on SIGTERM): a 0 is a success.
		r.rec.State = record.StateSucceeded
	case stopped != "":
		r.rec.State, r.rec.Reason = record.StateStopped, stopped
		r.rec.Message = fmt.Sprintf("replica %s stopped%s: exited with code %d (%s)", self, stopWhy[stopped], ex.Code, ex.Reason)
		if stopped != ReasonJobEnded {
			events = append(events, Event{Type: "Normal", Reason: ReasonReplicaStopped, Action: "Stop", Note: r.rec.Message})
		}
	case r.job.Ended() && ex.Code == 0:
		r.rec.State = record.StateSucceeded
	case r.job.Ended():
		fail(ex.Reason, fmt.Sprintf("replica %s exited with code %d after the job ended", self, ex.Code))
	case pol.ShouldRestart(ex.Code) && pol.MaxRestarts != nil && r.rec.Restarts >= *pol.MaxRestarts:
		fail(ReasonMaxRestartsExceeded, fmt.Sprintf("replica %s exited with code %d and has used its %d restarts (%s)",
			self, ex.Code, *pol.MaxRestarts, ReasonMaxRestartsExceeded))
	case pol.ShouldRestart(ex.Code):
		r.rec.State, restart = record.StateRestarting, true
		events = append(events, Event{Type: "Warning", Reason: ReasonReplicaExited, Action: "Exit", Note: exitNote},
			Event{Type: "Normal", Reason: ReasonReplicaRestarting, Action: "Restart",
				Note: fmt.Sprintf("replica %s restarts after exit code %d (restart %d)", self, ex.Code, r.rec.Restarts+1)})
	case ex.Code == 0:
		r.rec.State = record.StateSucceeded
	default:
		fail(ex.Reason, fmt.Sprintf("replica %s exited with code %d, which its restart policy %s does not retry", self, ex.Code, pol.Restart))
	}
	if ex.Tail != "" {
		r.rec.LogTail = record.Tail(ex.Tail)
	}
	rep := Report{Replica: r.rec, Exit: &ex, Events: events}
	if stopped == ReasonJobEnded {
		rep.Defer, rep.Spread = r.cfg.Job.spread(), r.cfg.Job.spread()
	}
	r.rep.Report(rep)
	return restart
}

// noRestart records that a replica waiting to restart will not, because
// the job ended or was suspended meanwhile.
func (r *replica) noRestart(why string) {
	r.rec.State, r.rec.Reason = record.StateStopped, why
	r.report(Event{Type: "Normal", Reason: ReasonReplicaStopped, Action: "Stop",
		Note: fmt.Sprintf("replica %s does not restart%s", r.cfg.Self, stopWhy[why])})
}

// stopWhy says in words why a replica was stopped, by its reason.
var stopWhy = map[string]string{
	ReasonJobEnded:   " (the job had ended)",
	ReasonSuspended:  " (the job is suspended)",
	ReasonTerminated: " (its supervisor was stopped)",
	ReasonDisrupted:  " (its pod was deleted, evicted or preempted)",
}

// refused records that the restart the replica waited for will not come:
// the job failed at its backoff limit.
func (r *replica) refused() {
	note := fmt.Sprintf("replica %s cannot restart: the job has used its backoff limit of %d restarts", r.cfg.Self, *r.cfg.Job.BackoffLimit)
	r.rec.State, r.rec.Reason, r.rec.Message = record.StateFailed, ReasonBackoffLimitExceeded, note
	r.report(Event{Type: "Warning", Reason: ReasonReplicaFailed, Action: "Fail", Note: note})
}

// deniedRestart reports whether the job ended because its backoff limit
// was used up before this replica, waiting to restart, was granted one.
func (r *replica) deniedRestart() bool {
	c := r.job.Condition(record.JobFailed)
	return c != nil && c.Status == record.ConditionTrue && c.Reason == ReasonBackoffLimitExceeded && !r.granted()
}

// trainedHere reports whether rec, a record its pod carried before this
// supervisor, says the replica trained in this pod: it ran, or stopped,
// rather than idled from the start.
func trainedHere(rec *record.Replica) bool {
	return rec != nil && rec.State != "" && rec.State != record.StateIdle
}

// result is how supervision ended, as the supervisor's exit code and
// termination message give it.
func (r *replica) result() Result {
	res := Result{State: r.rec.State, Reason: r.rec.Reason, Restarts: r.rec.Restarts}
	if r.rec.LastExitCode != nil && r.rec.State != record.StateIdle {
		res.ExitCode = int(*r.rec.LastExitCode)
	}
	return res
}

func endReason(s *record.Status) string {
	for _, t := range []record.ConditionType{record.JobSucceeded, record.JobFailed} {
		if c := s.Condition(t); c != nil && c.Status == record.ConditionTrue {
			return string(t) + ": " + c.Reason
		}
	}
	return "running"
}
