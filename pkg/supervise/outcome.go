package supervise

import (
	"github.com/tfgen/tfgen/pkg/record"
)

// Event reasons (UpperCamelCase, as events.k8s.io/v1 wants) and the
// reasons of the job's Failed and Succeeded conditions.
const (
	ReasonReplicaStarted       = "ReplicaStarted"
	ReasonReplicaExited        = "ReplicaExited"
	ReasonReplicaRestarting    = "ReplicaRestarting"
	ReasonReplicaFailed        = "ReplicaFailed"
	ReasonReplicaStopped       = "ReplicaStopped"
	ReasonReplicaIdle          = "ReplicaIdle"
	ReasonJobSucceeded         = "JobSucceeded"
	ReasonJobFailed            = "JobFailed"
	ReasonDeadlineExceeded     = "DeadlineExceeded"
	ReasonBackoffLimitExceeded = "BackoffLimitExceeded"
	ReasonMaxRestartsExceeded  = "MaxRestartsExceeded"
	ReasonTeardown             = "Teardown"
	ReasonTeardownFailed       = "TeardownFailed"
	ReasonTTLExpired           = "TTLExpired"
)

// Replica states reported besides the record's.
const (
	// StateIdle: the replica does not train because its work is done.
	StateIdle = "Idle"
)

// JobSucceeded reports whether the job has succeeded given the replicas'
// states in s: the success replica if one is set; else the chief (or
// master, or an MXNet scheduler, which exits once training is over); else
// worker 0, or every worker under AllWorkers; an MXTune job without workers
// succeeds when its tuners do. Parameter servers and evaluators never
// decide. A job without roles is its one replica.
func (c *Config) JobSucceeded(s *record.Status) bool {
	done := func(t string, i int32) bool {
		r := s.Lookup(t, i)
		return r != nil && r.State == record.StateSucceeded
	}
	all := func(t string) bool {
		role, ok := c.Layout.Role(t)
		if !ok || role.Replicas == 0 {
			return false
		}
		for i := int32(0); i < role.Replicas; i++ {
			if !done(t, i) {
				return false
			}
		}
		return true
	}
	switch {
	case c.SuccessReplica != nil:
		return done(c.SuccessReplica.Type, c.SuccessReplica.Index)
	case len(c.Layout.Roles) == 0:
		return done(c.Self.Type, c.Self.Index)
	}
	for _, t := range []string{"chief", "master", "scheduler"} {
		if r, ok := c.Layout.Role(t); ok && r.Replicas > 0 {
			return all(t)
		}
	}
	if c.SuccessPolicy == AllWorkers {
		return all("worker")
	}
	if _, ok := c.Layout.Role("worker"); !ok {
		if _, ok := c.Layout.Role("tuner"); ok {
			return all("tuner")
		}
	}
	return done("worker", 0)
}

// TeardownTypes returns the replica types to stop when the job has ended,
// by clean-pod policy: every type (All); the types with a replica that has
// not finished (Running; a replica that never wrote to the record has not
// finished); none (None). This replica's own type comes last.
func (c *Config) TeardownTypes(s *record.Status) []string {
	var types []string
	own := false
	for _, r := range c.Layout.Roles {
		if r.Replicas == 0 || c.CleanPodPolicy == CleanNone {
			continue
		}
		if c.CleanPodPolicy == CleanRunning && finished(s, r.Type, r.Replicas) {
			continue
		}
		if r.Type == c.Self.Type {
			own = true
			continue
		}
		types = append(types, r.Type)
	}
	if own {
		types = append(types, c.Self.Type)
	}
	return types
}

func finished(s *record.Status, t string, n int32) bool {
	for i := int32(0); i < n; i++ {
		r := s.Lookup(t, i)
		if r == nil || (r.State != record.StateSucceeded && r.State != record.StateFailed) {
			return false
		}
	}
	return true
}
