package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

const listLong = `List the jobs of a namespace (or of all, with -A) as kubectl get tfjobs
would: NAME, STATE, AGE, and for each replica type its replicas as
ACTIVE/SUCCEEDED/FAILED ("-" for a job without that type). When Kueue
admits any of the jobs, ADMISSION says how, as STATE/QUEUE from its
workload: Waiting (no workload yet), Queued, QuotaReserved, Admitted,
Evicted or Released.

A job is its record ConfigMap (labelled app.kubernetes.io/managed-by=tfgen,
app.kubernetes.io/component=job); STATE is from the status its supervisors
write there: Created, Running, Restarting, Suspended, Succeeded or Failed.

Examples:
  tfgen list
  tfgen list -n team-a
  tfgen list -A`

// listOptions are the flags of tfgen list.
type listOptions struct{ scopeOptions }

func newListCmd(s Streams) *cobra.Command {
	o := &listOptions{}
	cmd := &cobra.Command{
		Use:     "list [flags]",
		Aliases: []string{"ls"},
		Short:   "List the jobs in a namespace, like kubectl get tfjobs",
		Long:    listLong,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd, s)
		},
	}
	o.AddFlags(cmd.Flags(), "list")
	return cmd
}

// Run lists the jobs.
func (o *listOptions) Run(cmd *cobra.Command, s Streams) error {
	c, ns, err := o.kube.client(cmd, s)
	if err != nil {
		return err
	}
	ns = o.namespace(ns)
	jobs, err := c.List(cmd.Context(), ns)
	if err != nil {
		return err
	}
	if len(jobs) == 0 {
		if o.AllNamespaces {
			_, err = fmt.Fprintln(s.ErrOut, "No jobs found.")
		} else {
			_, err = fmt.Fprintf(s.ErrOut, "No jobs found in namespace %s.\n", ns)
		}
		return err
	}
	return printList(s.Out, jobs, c.Admissions(cmd.Context(), ns, jobs), o.AllNamespaces, c.Now())
}
