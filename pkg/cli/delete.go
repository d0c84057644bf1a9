package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tfgen/tfgen/pkg/operate"
)

const deleteLong = `Delete every object of a job, found by its labels
(app.kubernetes.io/instance=JOB, app.kubernetes.io/managed-by=tfgen):
StatefulSets first, so that no pod comes back, then the TensorBoard
Deployment, pods, Services, PodGroups and Workloads (where served), the
RoleBinding, Role and ServiceAccount, and the record ConfigMap last. It then
waits until they are all gone, up to --timeout.

Examples:
  tfgen delete mnist
  tfgen delete mnist -n team-a --timeout 5m`

// deleteOptions are the flags of tfgen delete.
type deleteOptions struct {
	kube        kubeOptions
	Timeout     time.Duration
	GracePeriod int64
}

// AddFlags registers the flags of tfgen delete.
func (o *deleteOptions) AddFlags(fs *pflag.FlagSet) {
	o.kube.AddFlags(fs)
	fs.DurationVar(&o.Timeout, "timeout", 2*time.Minute, "how long to wait for the objects to be gone (0: do not wait)")
	fs.Int64Var(&o.GracePeriod, "grace-period", -1, "seconds the pods get to stop (-1: each pod's own; 0: at once)")
}

// Validate checks the flags.
func (o *deleteOptions) Validate() error {
	if o.Timeout < 0 {
		return fmt.Errorf("--timeout %s: want 0 or more", o.Timeout)
	}
	if o.GracePeriod < -1 {
		return fmt.Errorf("--grace-period %d: want -1 or more", o.GracePeriod)
	}
	return nil
}

func newDeleteCmd(s Streams) *cobra.Command {
	o := &deleteOptions{}
	cmd := &cobra.Command{
		Use:   "delete JOB [flags]",
		Short: "Delete every object of a job and wait until they are gone",
		Long:  deleteLong,
		Args:  oneJob,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd, s, args[0])
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// Run deletes job name.
func (o *deleteOptions) Run(cmd *cobra.Command, s Streams, name string) error {
	c, ns, err := o.kube.client(cmd, s)
	if err != nil {
		return err
	}
	opts := operate.DeleteOptions{Timeout: o.Timeout}
	if o.GracePeriod >= 0 {
		opts.GracePeriod = &o.GracePeriod
	}
	deleted, err := c.Delete(cmd.Context(), ns, name, opts)
	var b strings.Builder
	for _, d := range deleted {
		fmt.Fprintf(&b, "%s deleted\n", d)
	}
	if err == nil {
		fmt.Fprintf(&b, "job %s deleted\n", name)
	}
	if _, werr := fmt.Fprint(s.Out, b.String()); werr != nil && err == nil {
		err = werr
	}
	return err
}
