package record

import (
	"strings"
	"time"
)

// Condition returns the condition of type t, or nil.
func (s *Status) Condition(t ConditionType) *Condition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == t {
			return &s.Conditions[i]
		}
	}
	return nil
}

// IsTrue reports whether condition t is present and True.
func (s *Status) IsTrue(t ConditionType) bool {
	c := s.Condition(t)
	return c != nil && c.Status == ConditionTrue
}

// Ended reports whether the job succeeded or failed.
func (s *Status) Ended() bool { return s.IsTrue(JobSucceeded) || s.IsTrue(JobFailed) }

// Phase sums the conditions up in one word, as `tfgen status` prints it:
// Succeeded or Failed once ended, else Suspended, Restarting, Running or
// Created (the first that is True), or "" for a job nobody has started.
func (s *Status) Phase() ConditionType {
	for _, t := range []ConditionType{JobSucceeded, JobFailed, JobSuspended, JobRestarting, JobRunning, JobCreated} {
		if s.IsTrue(t) {
			return t
		}
	}
	return ""
}

// SetCondition sets condition t to True with reason and message, the way
// Kubeflow does: Running and Restarting exclude each other, and Succeeded or
// Failed turn both off. lastTransitionTime only moves when status changes.
func (s *Status) SetCondition(t ConditionType, reason, message string, now time.Time) {
	switch t {
	case JobRunning:
		s.setStatus(JobRestarting, ConditionFalse, now)
	case JobRestarting:
		s.setStatus(JobRunning, ConditionFalse, now)
	case JobSucceeded, JobFailed:
		s.setStatus(JobRunning, ConditionFalse, now)
		s.setStatus(JobRestarting, ConditionFalse, now)
	}
	mt := NewTime(now)
	c := s.Condition(t)
	if c == nil {
		s.Conditions = append(s.Conditions, Condition{Type: t, Status: ConditionTrue, Reason: reason, Message: message,
			LastUpdateTime: mt, LastTransitionTime: mt})
		return
	}
	if c.Status == ConditionTrue && c.Reason == reason && c.Message == message {
		return
	}
	if c.Status != ConditionTrue {
		c.LastTransitionTime = mt
	}
	c.Status, c.Reason, c.Message, c.LastUpdateTime = ConditionTrue, reason, message, mt
}

func (s *Status) setStatus(t ConditionType, st ConditionStatus, now time.Time) {
	c := s.Condition(t)
	if c == nil || c.Status == st {
		return
	}
	mt := NewTime(now)
	c.Status, c.LastUpdateTime, c.LastTransitionTime = st, mt, mt
}

// Start marks the job created and running, and sets startTime if unset.
func (s *Status) Start(now time.Time) {
	if s.StartTime == nil {
		mt := NewTime(now)
		s.StartTime = &mt
	}
	if s.Condition(JobCreated) == nil {
		s.SetCondition(JobCreated, "JobCreated", "the first replica started", now)
	}
}

// Finish ends the job: Succeeded or Failed with reason and message, and
// completionTime. A job that already ended keeps its outcome.
func (s *Status) Finish(succeeded bool, reason, message string, now time.Time) {
	if s.Ended() {
		return
	}
	t := JobFailed
	if succeeded {
		t = JobSucceeded
	}
	s.SetCondition(t, reason, message, now)
	mt := NewTime(now)
	s.CompletionTime = &mt
}

// HasSucceeded reports whether replica index of lowercase type t has
// succeeded.
func (s *Status) HasSucceeded(t string, index int32) bool { return s.Succeeded[t].Has(index) }

// AddSucceeded records that replica index of lowercase type t succeeded.
func (s *Status) AddSucceeded(t string, index int32) { addIndex(&s.Succeeded, t, index) }

// HasFailed reports whether replica index of lowercase type t has failed
// for good.
func (s *Status) HasFailed(t string, index int32) bool { return s.Failed[t].Has(index) }

// AddFailed records that replica index of lowercase type t failed for
// good.
func (s *Status) AddFailed(t string, index int32) { addIndex(&s.Failed, t, index) }

// Finished reports whether replica index of lowercase type t has
// succeeded or failed for good: it never trains again.
func (s *Status) Finished(t string, index int32) bool {
	return s.HasSucceeded(t, index) || s.HasFailed(t, index)
}

func addIndex(sets *map[string]*IndexSet, t string, index int32) {
	if *sets == nil {
		*sets = map[string]*IndexSet{}
	}
	if (*sets)[t] == nil {
		(*sets)[t] = &IndexSet{}
	}
	(*sets)[t].Add(index)
}

var kubeflowTypes = map[string]string{
	"chief": "Chief", "master": "Master", "worker": "Worker", "ps": "PS", "evaluator": "Evaluator",
	"scheduler": "Scheduler", "server": "Server", "tunertracker": "TunerTracker", "tunerserver": "TunerServer", "tuner": "Tuner",
}

// KubeflowType spells a lowercase replica type the way Kubeflow's
// replicaStatuses keys do ("ps" is "PS").
func KubeflowType(t string) string {
	if k, ok := kubeflowTypes[t]; ok {
		return k
	}
	if t == "" {
		return t
	}
	return strings.ToUpper(t[:1]) + t[1:]
}
