//go:build !tfsupervisor_wrap

package cli

import (
	"io"

	"github.com/spf13/cobra"
)

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
	root.AddCommand(newRunCmd(stderr), newWatchCmd(stderr), newInstallCmd(stdout), newVersionCmd(stdout), newHoldCmd(stderr), newKeepCmd(stderr))
	return root
}
