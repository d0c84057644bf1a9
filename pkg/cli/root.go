package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

const rootLong = `tfgen turns distributed TensorFlow and MXNet training job specs (Kubeflow
TFJob and MXJob, and the dialects of the operators before and around it) into
plain Kubernetes objects that run with no CRD and no operator installed.

  tfgen render -f job.yaml | kubectl apply -f -
  tfgen render -f jobs/ -o rendered/
  tfgen values -f job.yaml | helm install mnist charts/tfjob -f -`

// Streams are the command's standard input, output and error.
type Streams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// NewRootCmd returns the tfgen command with every subcommand.
func NewRootCmd(s Streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:           "tfgen",
		Short:         "Render TFJob specs into plain Kubernetes objects",
		Long:          rootLong,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	cmd.SetIn(s.In)
	cmd.SetOut(s.Out)
	cmd.SetErr(s.ErrOut)
	cmd.CompletionOptions.DisableDefaultCmd = true
	cmd.AddCommand(
		newRenderCmd(s),
		newEnvCmd(s),
		newValuesCmd(s),
		newRunCmd(s),
		newVersionCmd(s),
		newCompletionCmd(s),
		newListCmd(s),
		newStatusCmd(s),
		newLogsCmd(s),
		newSuspendCmd(s),
		newResumeCmd(s),
		newScaleCmd(s),
		newDeleteCmd(s),
		newMetricsCmd(s),
	)
	return cmd
}

// Report prints err to w, one problem per line, and returns the exit
// status: 0 for no error, 128 plus the signal's number when a signal
// stopped the command (see Interrupted), 1 otherwise.
func Report(w io.Writer, err error) int {
	if err == nil {
		return 0
	}
	var pe *problems
	if errors.As(err, &pe) {
		for _, line := range pe.lines {
			fmt.Fprintln(w, line)
		}
		fmt.Fprintf(w, "tfgen: %s\n", pe.summary())
		return 1
	}
	fmt.Fprintf(w, "tfgen: %v\n", err)
	var ie *Interrupted
	if errors.As(err, &ie) {
		return ie.ExitCode()
	}
	return 1
}
