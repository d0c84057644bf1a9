package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// ExitError asks the process to exit with Code, having said nothing more
// (the training process's exit code passes through this way).
type ExitError struct {
	Code int
}

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// ExitCode maps what Execute returned to the process's exit code: the
// ExitError's code, 1 for any other error (printed to stderr), else 0.
func ExitCode(err error, stderr io.Writer) int {
	var ee *ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.Code
	default:
		fmt.Fprintf(stderr, "tfsupervisor: %v\n", err)
		return 1
	}
}

const rootLong = `tfsupervisor runs inside each pod of a tfgen job and does what an operator
would: it starts the training process with TF_CONFIG (or MX_CONFIG and
DMLC_*), restarts it by the replica's restart policy, records the job's
status in the job's record ConfigMap, decides the job's outcome and stops
the job's replicas when it ends. See docs/contract.md for the flags the
templates pass.`

// NewRoot returns the tfsupervisor command.
func NewRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "tfsupervisor",
		Short:         "Supervise one replica of a distributed training job",
		Long:          rootLong,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newRunCmd(stderr), newWatchCmd(stderr), newInstallCmd(stdout), newVersionCmd(stdout), newHoldCmd(stderr))
	return root
}
