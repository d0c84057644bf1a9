package cli

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

const scaleLong = `Change the number of workers of a running job.

A DRAGON job (spec.min-instances and spec.max-instances) is scaled within
them; a count outside is refused, and so is a job that is suspended or has
ended. tfgen records the new layout in the job's status, from which the
supervisors build TF_CONFIG at run time, and sets the worker StatefulSet's
replicas; nothing else changes, so a GitOps tool sees only replicas differ.
No running pod is recreated: new workers start with the new layout; a
replica whose TF_CONFIG the resize changes (every one, under
MultiWorkerMirroredStrategy) restarts its training process in place, once,
counted against nothing; one whose TF_CONFIG stays (with
enableDynamicWorker a worker's lists only itself and the parameter
servers, as in Kubeflow) trains on. Sidecar-mode replicas, whose TF_CONFIG
is rendered into their pod template, get the template rewritten and their
pods deleted (their StatefulSets update OnDelete), and the StatefulSet
controller makes them again from it.

The job's keeper keeps the StatefulSet at the new count from then on, and
resume after a suspend starts that many.

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
		Short: "Change the number of workers of a running job",
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
				fmt.Fprintf(&b, "sidecar-mode pod templates updated, their pods deleted to restart with the new cluster spec: %s\n", strings.Join(res.Templates, ", "))
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
