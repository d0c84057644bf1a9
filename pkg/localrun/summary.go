package localrun

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// Summary is how a run ended.
type Summary struct {
	// Job is the job's name.
	Job string
	// Status is the job's record.
	Status *record.Status
	// Replicas in the plan's order.
	Replicas []ReplicaResult
	// Interrupted: the run was stopped before the job ended.
	Interrupted bool
}

// ReplicaResult is how one replica ended.
type ReplicaResult struct {
	// Ref names the replica.
	Ref supervise.Ref
	// Result of its supervision: last exit code and restarts.
	supervise.Result
}

// Succeeded reports whether the job succeeded.
func (s *Summary) Succeeded() bool { return s.Status.IsTrue(record.JobSucceeded) }

// Err says why the job did not succeed; nil when it did.
func (s *Summary) Err() error {
	switch {
	case s.Succeeded():
		return nil
	case s.Interrupted:
		return fmt.Errorf("job %s interrupted before it ended", s.Job)
	case s.Status.IsTrue(record.JobFailed):
		c := s.Status.Condition(record.JobFailed)
		return fmt.Errorf("job %s failed (%s): %s", s.Job, c.Reason, c.Message)
	}
	return fmt.Errorf("job %s did not end: its replicas stopped before one decided its outcome", s.Job)
}

// WriteTable writes one row per replica: its exit code, restarts and state.
func (s *Summary) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "REPLICA\tEXIT CODE\tRESTARTS\tSTATE")
	for _, r := range s.Replicas {
		code := strconv.Itoa(r.ExitCode)
		if r.State == record.StateIdle {
			code = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", r.Ref, code, r.Restarts, r.State)
	}
	return tw.Flush()
}
