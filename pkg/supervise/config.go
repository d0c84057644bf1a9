package supervise

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tfgen/tfgen/pkg/cluster"
)

// CleanPodPolicy says which replicas are stopped when the job ends.
type CleanPodPolicy string

// Clean-pod policies (T9k's Unfinished is Running).
const (
	// CleanAll stops every replica type.
	CleanAll CleanPodPolicy = "All"
	// CleanRunning stops the types that have unfinished replicas.
	CleanRunning CleanPodPolicy = "Running"
	// CleanNone stops nothing.
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

// Ref names one replica.
type Ref struct {
	// Type is the lowercase replica type.
	Type string
	// Index is its ordinal.
	Index int32
}

func (r Ref) String() string { return r.Type + "-" + strconv.Itoa(int(r.Index)) }

// ParseRef reads "type-index" (worker-0).
func ParseRef(s string) (Ref, error) {
	i := strings.LastIndexByte(s, '-')
	n, err := strconv.ParseInt(s[i+1:], 10, 32)
	if i <= 0 || err != nil || n < 0 {
		return Ref{}, fmt.Errorf("replica %q: want type-index, e.g. worker-0", s)
	}
	return Ref{Type: strings.ToLower(s[:i]), Index: int32(n)}, nil
}

// Config is one replica's supervision: who it is, the job's layout and
// the job's policies.
type Config struct {
	// Job is the job's name.
	Job string
	// Namespace of the job.
	Namespace string
	// Pod is this replica's pod name (POD_NAME), for reports.
	Pod string
	// Layout of the job; with no roles the replica is a job of its own.
	Layout *cluster.Layout
	// Self is this replica.
	Self Ref
	// Policy of this replica's restarts.
	Policy Policy
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
	// CleanPodPolicy says what Teardown stops when the job ends.
	CleanPodPolicy CleanPodPolicy
	// TTLAfterFinished, when set, stops every replica that long after the
	// job ended.
	TTLAfterFinished *time.Duration
	// GracePeriod between forwarding SIGTERM and killing the group.
	GracePeriod time.Duration
	// TeardownTimeout bounds the time spent stopping replicas.
	TeardownTimeout time.Duration
	// Logf logs a line; nil logs to stderr.
	Logf func(format string, args ...any)
}

// Validate checks the configuration and fills the defaults.
func (c *Config) Validate() error {
	var errs []error
	if c.Layout == nil {
		c.Layout = &cluster.Layout{Job: c.Job}
	}
	if len(c.Layout.Roles) > 0 {
		r, ok := c.Layout.Role(c.Self.Type)
		if !ok {
			errs = append(errs, fmt.Errorf("replica type %q is not one of the job's roles (%s)", c.Self.Type, cluster.EncodeRoles(c.Layout.Roles)))
		} else if c.Self.Index < 0 || c.Self.Index >= r.Replicas {
			errs = append(errs, fmt.Errorf("replica %s: index out of range (the job has %d)", c.Self, r.Replicas))
		}
	}
	if c.Policy.Restart == "" {
		c.Policy.Restart = Never
	}
	if c.CleanPodPolicy == "" {
		c.CleanPodPolicy = CleanRunning
	}
	if c.SuccessPolicy != "" && c.SuccessPolicy != AllWorkers {
		errs = append(errs, fmt.Errorf("success policy %q: want \"\" or AllWorkers", c.SuccessPolicy))
	}
	if c.SuccessWorkers != nil && (c.SuccessPolicy == AllWorkers || c.SuccessReplica != nil) {
		errs = append(errs, errors.New("success workers: not with success policy AllWorkers or a success replica"))
	}
	switch c.RestartScope {
	case "", RestartScopeReplica, RestartScopeJob:
	default:
		errs = append(errs, fmt.Errorf("restart scope %q: want Replica or Job", c.RestartScope))
	}
	if c.EvaluatorGrace < 0 {
		errs = append(errs, fmt.Errorf("evaluator grace %v: want 0 or more", c.EvaluatorGrace))
	}
	if c.GracePeriod <= 0 {
		c.GracePeriod = 30 * time.Second
	}
	if c.TeardownTimeout <= 0 {
		c.TeardownTimeout = 2 * time.Minute
	}
	if c.Logf == nil {
		c.Logf = func(format string, args ...any) { fmt.Fprintf(os.Stderr, "tfsupervisor: "+format+"\n", args...) }
	}
	return errors.Join(errs...)
}

// IsMaster reports whether this replica gets the label
// training.kubeflow.org/job-role=master: the chief or master, or worker 0
// when the job has neither.
func (c *Config) IsMaster() bool {
	switch c.Self.Type {
	case "chief", "master":
		return true
	case "worker":
		_, chief := c.Layout.Role("chief")
		_, master := c.Layout.Role("master")
		return !chief && !master && c.Self.Index == 0
	}
	return false
}

// Keeper returns the replica whose supervisor keeps the job's status: the
// success replica if one is set, else replica 0 of the first type of
// chief, master, scheduler, worker and tuner the job has, else of its
// first type. A job without roles keeps itself.
func (c *Config) Keeper() Ref {
	if c.SuccessReplica != nil {
		return *c.SuccessReplica
	}
	if len(c.Layout.Roles) == 0 {
		return c.Self
	}
	for _, t := range []string{"chief", "master", "scheduler", "worker", "tuner"} {
		if r, ok := c.Layout.Role(t); ok && r.Replicas > 0 {
			return Ref{Type: t}
		}
	}
	return Ref{Type: c.Layout.Roles[0].Type}
}

// IsKeeper reports whether this replica keeps the job's status.
func (c *Config) IsKeeper() bool { return c.Keeper() == c.Self }
