package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

const suspendLong = `Suspend a job as Kubeflow's runPolicy.suspend does: every StatefulSet of
the job is scaled to zero, so its pods stop, while the record, the spec and
every other object stay. The record gets the Suspended condition; Running
turns False. tfgen resume starts the replicas again.

A job that succeeded or failed cannot be suspended. Suspending a suspended
job scales its StatefulSets to zero again.

Examples:
  tfgen suspend mnist
  tfgen suspend mnist -n team-a`

const resumeLong = `Resume a suspended job: every StatefulSet goes back to the job's replica
counts (spec.json in the record, with any count tfgen scale set since), and
the Suspended condition turns False. startTime restarts, as in Kubeflow, so
activeDeadlineSeconds counts from the resume. A job rendered with
runPolicy.suspend: true starts this way too.

Examples:
  tfgen resume mnist
  tfgen resume mnist -n team-a`

func newSuspendCmd(s Streams) *cobra.Command {
	o := &kubeOptions{}
	cmd := &cobra.Command{
		Use:   "suspend JOB [flags]",
		Short: "Suspend a job: scale it to zero, keeping its record",
		Long:  suspendLong,
		Args:  oneJob,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, j, err := o.job(cmd, s, args[0])
			if err != nil {
				return err
			}
			already, err := c.Suspend(cmd.Context(), j)
			if err != nil {
				return err
			}
			if already {
				_, err = fmt.Fprintf(s.Out, "job %s was already suspended\n", j.Name)
			} else {
				_, err = fmt.Fprintf(s.Out, "job %s suspended\n", j.Name)
			}
			return err
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

func newResumeCmd(s Streams) *cobra.Command {
	o := &kubeOptions{}
	cmd := &cobra.Command{
		Use:   "resume JOB [flags]",
		Short: "Resume a suspended job with its replica counts",
		Long:  resumeLong,
		Args:  oneJob,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, j, err := o.job(cmd, s, args[0])
			if err != nil {
				return err
			}
			counts, err := c.Resume(cmd.Context(), j)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(s.Out, "job %s resumed: %s\n", j.Name, formatCounts(counts))
			return err
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}
