package supervise

import (
	"slices"
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
	ReasonEvaluatorStopped     = "EvaluatorStopped"
	ReasonJobRestarting        = "JobRestarting"
)

// Reasons a replica's training process was stopped from outside (the
// reason of its Stopped state).
const (
	// ReasonJobEnded: the job ended, and its clean pod policy stops the
	// replica's type.
	ReasonJobEnded = "JobEnded"
	// ReasonSuspended: the job was suspended.
	ReasonSuspended = "Suspended"
	// ReasonTerminated: the supervisor got SIGTERM or SIGINT (its pod is
	// going away).
	ReasonTerminated = "Terminated"
	// ReasonDisrupted: sidecar mode, the training container exited while
	// its pod was being deleted, evicted or preempted.
	ReasonDisrupted = "Disrupted"
	// ReasonJobRestart: under restart scope Job, another replica failed
	// and every replica's training process restarts.
	ReasonJobRestart = "JobRestart"
)

// JobSucceeded reports whether the job has succeeded, given which
// replicas have: the success replica if one is set; else the chief (or
// master, or an MXNet scheduler, which exits once training is over); else
// worker 0, or every worker under AllWorkers, or as many workers as
// SuccessWorkers asks for; an MXTune job without workers
// succeeds when its tuners do. Parameter servers and evaluators never
// decide. A job without roles is its one replica.
func (c *Config) JobSucceeded(succeeded func(t string, index int32) bool) bool {
	all := func(t string) bool {
		role, ok := c.Layout.Role(t)
		if !ok || role.Replicas == 0 {
			return false
		}
		for i := int32(0); i < role.Replicas; i++ {
			if !succeeded(t, i) {
				return false
			}
		}
		return true
	}
	switch {
	case c.SuccessReplica != nil:
		return succeeded(c.SuccessReplica.Type, c.SuccessReplica.Index)
	case len(c.Layout.Roles) == 0:
		return succeeded(c.Self.Type, c.Self.Index)
	}
	for _, t := range []string{"chief", "master", "scheduler"} {
		if r, ok := c.Layout.Role(t); ok && r.Replicas > 0 {
			return all(t)
		}
	}
	if c.SuccessPolicy == AllWorkers {
		return all("worker")
	}
	if q := c.SuccessWorkers; q != nil {
		got, need := c.workersSucceeded(succeeded)
		return need > 0 && got >= need
	}
	if _, ok := c.Layout.Role("worker"); !ok {
		if _, ok := c.Layout.Role("tuner"); ok {
			return all("tuner")
		}
	}
	return succeeded("worker", 0)
}

// workersSucceeded counts the workers that succeeded, and says how many
// SuccessWorkers needs.
func (c *Config) workersSucceeded(succeeded func(t string, index int32) bool) (got, need int32) {
	r, _ := c.Layout.Role("worker")
	for i := range r.Replicas {
		if succeeded("worker", i) {
			got++
		}
	}
	return got, c.SuccessWorkers.Of(r.Replicas)
}

// survives reports whether the job goes on after replica failed failed:
// with dynamic workers (enableDynamicWorker), a worker's failure does not
// fail the job, as in Kubeflow, as long as the job can still succeed by
// its success policy (a chief, worker 0 or enough workers have not
// failed); failed says which replicas have.
func (c *Config) survives(failed Ref, hasFailed func(t string, index int32) bool) bool {
	if !c.Layout.Sparse || failed.Type != "worker" {
		return false
	}
	return c.JobSucceeded(func(t string, i int32) bool { return !hasFailed(t, i) })
}

// Types returns the job's replica types that have replicas, with own, if
// among them, last (stopping it may stop the caller). A job without roles
// has its one replica's type.
func (c *Config) Types(own string) []string {
	if len(c.Layout.Roles) == 0 {
		return []string{c.Self.Type}
	}
	var types []string
	for _, r := range c.Layout.Roles {
		if r.Replicas > 0 && r.Type != own {
			types = append(types, r.Type)
		}
	}
	if r, ok := c.Layout.Role(own); ok && r.Replicas > 0 {
		types = append(types, own)
	}
	return types
}

// TeardownTypes returns the replica types to stop when the job has ended,
// by clean-pod policy: every type (All); the types with a replica that has
// not finished (Running; a replica that never reported has not); none
// (None). The type own comes last.
func (c *Config) TeardownTypes(finished func(t string, index int32) bool, own string) []string {
	if c.CleanPodPolicy == CleanNone {
		return nil
	}
	return slices.DeleteFunc(c.Types(own), func(t string) bool {
		if c.CleanPodPolicy != CleanRunning {
			return false
		}
		r, _ := c.Layout.Role(t)
		for i := int32(0); i < r.Replicas; i++ {
			if !finished(t, i) {
				return false
			}
		}
		return true
	})
}
