package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tfgen/tfgen/pkg/operate"
)

const logsLong = `Print the logs of a job's training container: the container named
tensorflow (mxnet), else the first, as spec.json in the job's record says,
never the tfsupervisor sidecar.

By default the replica that decides the job's success (its successReplica,
else chief-0, master-0 or worker-0); --replica TYPE-INDEX picks another, and
--all prints every replica with a pod, each line prefixed with its replica
("[worker-2] "). -f follows the logs until the containers end.

A replica whose pod is gone (the clean pod policy removed it) is read from
what its job kept: the end of its output (2 KiB at most) at its last exit
that failed or was stopped, from the ConfigMap JOB-tfjob-logs.

Examples:
  tfgen logs mnist
  tfgen logs mnist --replica ps-0 --tail 20
  tfgen logs mnist --all -f`

// logsOptions are the flags of tfgen logs.
type logsOptions struct {
	kube    kubeOptions
	Replica string
	All     bool
	Follow  bool
	Tail    int64
}

// AddFlags registers the flags of tfgen logs.
func (o *logsOptions) AddFlags(fs *pflag.FlagSet) {
	o.kube.AddFlags(fs)
	fs.StringVar(&o.Replica, "replica", "", "the replica, TYPE-INDEX: worker-0, ps-1, chief-0")
	fs.BoolVar(&o.All, "all", false, "every replica's logs, each line prefixed with its replica")
	fs.BoolVarP(&o.Follow, "follow", "f", false, "follow the logs")
	fs.Int64Var(&o.Tail, "tail", -1, "lines from the end of each log to start with (-1: all)")
}

// Validate checks the flags.
func (o *logsOptions) Validate() error {
	if o.All && o.Replica != "" {
		return fmt.Errorf("--replica and --all: give one")
	}
	if o.Tail < -1 {
		return fmt.Errorf("--tail %d: want -1 or more", o.Tail)
	}
	return nil
}

func newLogsCmd(s Streams) *cobra.Command {
	o := &logsOptions{}
	cmd := &cobra.Command{
		Use:   "logs JOB [--replica TYPE-INDEX | --all] [-f] [flags]",
		Short: "Print the logs of a job's training containers",
		Long:  logsLong,
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

// Run prints the logs.
func (o *logsOptions) Run(cmd *cobra.Command, s Streams, name string) error {
	c, ns, err := o.kube.client(cmd, s)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	j, err := c.Get(ctx, ns, name)
	if err != nil {
		return err
	}
	sources, err := c.LogSources(ctx, j, o.Replica, o.All)
	if err != nil {
		return err
	}
	opts := operate.LogOptions{Follow: o.Follow, Prefix: len(sources) > 1, Notes: s.ErrOut}
	if o.Tail >= 0 {
		opts.Tail = &o.Tail
	}
	return c.Logs(ctx, ns, sources, opts, s.Out)
}
