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

// Config is one replica's supervision: its job, who it is, and its own
// settings.
type Config struct {
	// Job is the job's policy, shared by every replica.
	Job *Job
	// Pod is this replica's pod name, for reports.
	Pod string
	// Self is this replica.
	Self Ref
	// Policy of this replica's restarts.
	Policy Policy
	// GracePeriod between forwarding SIGTERM and killing the group.
	GracePeriod time.Duration
	// Logf logs a line; nil logs to stderr.
	Logf func(format string, args ...any)
}

// Validate checks the configuration, its job's included, and fills the
// defaults. A replica whose job has no roles is a job of its own.
func (c *Config) Validate() error {
	var errs []error
	if c.Job == nil {
		c.Job = &Job{}
	}
	if c.Job.Layout == nil {
		c.Job.Layout = &cluster.Layout{Job: c.Job.Name}
	}
	if roles := c.Job.Layout.Roles; len(roles) > 0 {
		// The index is checked against the job's counts at run time: a
		// resize may have added replicas the flags do not count.
		if _, ok := c.Job.Layout.Role(c.Self.Type); !ok {
			errs = append(errs, fmt.Errorf("replica type %q is not one of the job's roles (%s)", c.Self.Type, cluster.EncodeRoles(roles)))
		} else if c.Self.Index < 0 {
			errs = append(errs, fmt.Errorf("replica %s: index out of range", c.Self))
		}
	} else {
		c.Self.Index = 0
		c.Job.Solo = &Ref{Type: c.Self.Type}
	}
	errs = append(errs, c.Job.Validate())
	if c.Policy.Restart == "" {
		c.Policy.Restart = Never
	}
	if c.GracePeriod <= 0 {
		c.GracePeriod = 30 * time.Second
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
		return c.Job.replicas("chief") == 0 && c.Job.replicas("master") == 0 && c.Self.Index == 0
	}
	return false
}
