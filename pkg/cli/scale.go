package cli

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

const scaleLong = `Change the number of workers of a running or suspended job.

A DRAGON job (spec.min-instances and spec.max-instances) is scaled within
them; a count outside is refused. tfgen sets the worker StatefulSet's
replicas and rewrites what the supervisors build the cluster spec from: the
worker count in --roles of every StatefulSet's pod template (and, in sidecar
mode, in the TF_CONFIG or MX_CONFIG rendered into the pod template), so
every pod that starts from then on gets the new TF_CONFIG. The StatefulSet
controller replaces the pods of a changed template one at a time. With
enableDynamicWorker a worker's TF_CONFIG lists only itself and the
parameter servers, as in Kubeflow, so new workers join without the others
having to learn about them.

The new count is kept in the record (annotation tfgen.io/replicas), so
resume after suspend starts that many. A suspended job stays at zero.

Examples:
  tfgen scale job1 --workers 2
  tfgen scale mnist --workers 8 -n team-a`

// scaleOptions are the flags of tfgen scale.
type scaleOptions struct {
	kube    kubeOptions
	Workers int32
}

// AddFlags registers the flags of tfgen scale.
func (o *scaleOptions) AddFlags(fs *pflag.FlagSet) {
	o.kube.AddFlags(fs)
	fs.Int32Var(&o.Workers, "workers", -1, "the number of workers")
}

// Validate checks the flags.
func (o *scaleOptions) Validate() error {
	if o.Workers < 0 {
		return fmt.Errorf("--workers N is required (0 or more)")
	}
	return nil
}

func newScaleCmd(s Streams) *cobra.Command {
	o := &scaleOptions{}
	cmd := &cobra.Command{
		Use:   "scale JOB --workers N [flags]",
		Short: "Change the number of workers of a job",
		Long:  scaleLong,
		Args:  oneJob,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			c, j, err := o.kube.job(cmd, s, args[0])
			if err != nil {
				return err
			}
			res, err := c.Scale(cmd.Context(), j, "worker", o.Workers)
			if err != nil {
				return err
			}
			var b strings.Builder
			fmt.Fprintf(&b, "job %s scaled: %s from %d to %d\n", j.Name, res.Type, res.From, res.To)
			if len(res.Templates) > 0 {
				fmt.Fprintf(&b, "pod templates updated (their pods restart with the new cluster spec): %s\n", strings.Join(res.Templates, ", "))
			}
			if res.Suspended {
				fmt.Fprintf(&b, "the job is suspended: tfgen resume %s starts %d %ss\n", j.Name, res.To, res.Type)
			}
			_, err = fmt.Fprint(s.Out, b.String())
			return err
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// formatCounts writes replica counts as "ps 1, worker 2".
func formatCounts(counts map[string]int32) string {
	types := make([]string, 0, len(counts))
	for t := range counts {
		types = append(types, t)
	}
	sort.Strings(types)
	parts := make([]string, len(types))
	for i, t := range types {
		parts[i] = fmt.Sprintf("%s %d", t, counts[t])
	}
	return strings.Join(parts, ", ")
}
