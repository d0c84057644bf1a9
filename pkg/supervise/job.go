package supervise

import (
	"errors"
	"fmt"

	"time"

	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/record"
)

// CleanPodPolicy says which replicas are stopped when the job ends.
type CleanPodPolicy string

// Clean-pod policies (T9k's Unfinished is Running).
const (
	// CleanAll releases every replica type at once: their pods are
	// deleted.
	CleanAll CleanPodPolicy = "All"
	// CleanRunning stops the training of the types that have unfinished
	// replicas in place, then releases every type once its replicas have
	// said how they ended.
	CleanRunning CleanPodPolicy = "Running"
	// CleanNone stops nothing and keeps every pod (until the TTL).
	CleanNone CleanPodPolicy = "None"
)

// ParseCleanPodPolicy reads a clean-pod policy; "" and Unfinished are Running.
func ParseCleanPodPolicy(s string) (CleanPodPolicy, error) {
	switch p := CleanPodPolicy(s); p {
	case "", "Unfinished":
		return CleanRunning, nil
	case CleanAll, CleanRunning, CleanNone:
		return p, nil
	}
	return "", fmt.Errorf("clean pod policy %q: want All, Running or None", s)
}

// DefaultEvaluatorGrace is the time a running evaluator gets to finish
// once the job succeeded, unless the job says otherwise.
const DefaultEvaluatorGrace = 10 * time.Minute

// Restart scopes: what a retryable failure restarts.
const (
	RestartScopeReplica = "Replica"
	RestartScopeJob     = "Job"
)

// AllWorkers is the success policy under which every worker must succeed.
const AllWorkers = "AllWorkers"

// Job is a job's policy: its layout and the rules by which its keeper
// derives the job's status (derive) and makes the cluster match it
// (enforce). Every replica's supervisor shares it; what is a replica's
// own is in Config.
type Job struct {
	// Name of the job.
	Name string
	// Namespace of the job.
	Namespace string
	// Layout of the job; with no roles the job is the one replica Solo.
	Layout *cluster.Layout
	// Solo is the one replica of a job without roles (standalone
	// supervision: the replica is a job of its own, index 0);
	// Config.Validate sets it.
	Solo *Ref
	// BackoffLimit caps the restarts of the whole job; nil: no cap.
	BackoffLimit *int32
	// ActiveDeadline, when positive, fails the job that long after its
	// start time (kept in the record, so it survives restarts).
	ActiveDeadline time.Duration
	// SuccessPolicy: "" or AllWorkers.
	SuccessPolicy string
	// SuccessReplica, when set, is the one replica whose success is the
	// job's.
	SuccessReplica *Ref
	// SuccessWorkers, when set, is how many workers must succeed for a
	// job without a chief to succeed (successWorkers).
	SuccessWorkers *Quota
	// RestartScope is Replica (""): a retryable failure restarts the
	// replica; or Job: it restarts every replica's training process, in
	// place, counted once (wrap mode and tfgen run only).
	RestartScope string
	// EvaluatorGrace is how long an evaluator still running when the job
	// succeeds may go on, to finish its last evaluation, before it is
	// stopped; zero stops it with the rest.
	EvaluatorGrace time.Duration
	// CleanPodPolicy says what stops and what is released when the job
	// ends.
	CleanPodPolicy CleanPodPolicy
	// TTLAfterFinished, when set, releases every replica that long after
	// the job ended.
	TTLAfterFinished *time.Duration
	// Elastic, when set, resizes the job's workers by DRAGON's strategy.
	Elastic *Elastic
	// HoldFinished keeps a finished replica's pod until the job ends
	// instead of giving it back at once: Kueue admits the job's pods as
	// one group of fixed size, and makes its workload again, after an
	// eviction, only from every pod of it.
	HoldFinished bool
}

// Validate checks the job's policy and fills the defaults.
func (j *Job) Validate() error {
	var errs []error
	if j.Layout == nil {
		j.Layout = &cluster.Layout{Job: j.Name}
	}
	if len(j.Layout.Roles) == 0 && j.Solo == nil {
		errs = append(errs, errors.New("a job without roles needs its one replica (Solo)"))
	}
	if j.CleanPodPolicy == "" {
		j.CleanPodPolicy = CleanRunning
	}
	if j.SuccessPolicy != "" && j.SuccessPolicy != AllWorkers {
		errs = append(errs, fmt.Errorf("success policy %q: want \"\" or AllWorkers", j.SuccessPolicy))
	}
	if j.SuccessWorkers != nil && (j.SuccessPolicy == AllWorkers || j.SuccessReplica != nil) {
		errs = append(errs, errors.New("success workers: not with success policy AllWorkers or a success replica"))
	}
	switch j.RestartScope {
	case "", RestartScopeReplica, RestartScopeJob:
	default:
		errs = append(errs, fmt.Errorf("restart scope %q: want Replica or Job", j.RestartScope))
	}
	if j.EvaluatorGrace < 0 {
		errs = append(errs, fmt.Errorf("evaluator grace %v: want 0 or more", j.EvaluatorGrace))
	}
	if e := j.Elastic; e != nil && (e.Min < 1 || e.Max < e.Min) {
		errs = append(errs, fmt.Errorf("elastic workers %d to %d: want 1 <= min <= max", e.Min, e.Max))
	}
	return errors.Join(errs...)
}

// at returns the job as status s has it: its layout's counts as resized
// (record.Status.Layout), if they were.
func (j *Job) at(s *record.Status) *Job {
	if s == nil || len(s.Layout) == 0 {
		return j
	}
	c := *j
	c.Layout = j.Layout.Scaled(s.Layout)
	return &c
}

// Roles returns the job's replica types with their counts: the layout's,
// or the one replica's type of a job without roles.
func (j *Job) Roles() []cluster.Role {
	if len(j.Layout.Roles) > 0 || j.Solo == nil {
		return j.Layout.Roles
	}
	return []cluster.Role{{Type: j.Solo.Type, Replicas: 1}}
}

// replicas returns how many replicas type t has.
func (j *Job) replicas(t string) int32 {
	for _, r := range j.Roles() {
		if r.Type == t {
			return r.Replicas
		}
	}
	return 0
}

// total is the number of replicas of the job.
func (j *Job) total() int32 {
	var n int32
	for _, r := range j.Roles() {
		n += r.Replicas
	}
	return n
}

// KeeperType names the keeper's own StatefulSet, J-keeper, among the
// targets and in the teardown: it goes last, once every replica type has.
const KeeperType = "keeper"

// decider returns the replica whose success decides the job's by the
// success policy (replica 0 of its type but for a success replica): the
// success replica if one is set, else replica 0 of the first type of
// chief, master, scheduler, worker and tuner the job has, else of its
// first type. A job without roles is its one replica.
func (j *Job) decider() Ref {
	switch {
	case j.SuccessReplica != nil:
		return *j.SuccessReplica
	case len(j.Layout.Roles) == 0 && j.Solo != nil:
		return *j.Solo
	}
	for _, t := range []string{"chief", "master", "scheduler", "worker", "tuner"} {
		if j.replicas(t) > 0 {
			return Ref{Type: t}
		}
	}
	if roles := j.Roles(); len(roles) > 0 {
		return Ref{Type: roles[0].Type}
	}
	return Ref{}
}

// Types returns the job's replica types that have replicas.
func (j *Job) Types() []string {
	var types []string
	for _, r := range j.Roles() {
		if r.Replicas > 0 {
			types = append(types, r.Type)
		}
	}
	return types
}

func (j *Job) kind() string {
	if j.Layout.Framework == "mxnet" {
		return "MXJob"
	}
	return "TFJob"
}

// spread is how long reports made by every replica at the job's end may
// wait: 2 ms per replica, at most 5 s, so that the API server takes them
// at a steady rate.
func (j *Job) spread() time.Duration {
	return min(time.Duration(j.total())*2*time.Millisecond, 5*time.Second)
}
