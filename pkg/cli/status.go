package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"

	"github.com/tfgen/tfgen/pkg/operate"
	"github.com/tfgen/tfgen/pkg/record"
)

const statusLong = `Print a job's status: the Kubeflow-shaped status its supervisors keep in
the record ConfigMap (conditions, replicaStatuses, startTime,
completionTime, restarts) and, for each replica, its state, restarts, last
exit code and reason, with its pod, the pod's phase and its node.

-o yaml and -o json print the job as data shaped like a Kubeflow TFJob
(apiVersion kubeflow.org/v1, kind, metadata, spec, status with conditions
and replicaStatuses), with the condition Created from the moment its
objects exist; the replicas are under status.replicas. --watch prints the status again
whenever the record or a pod of the job changes, until the job ends; it then
exits with status 0 if the job succeeded and 1 if it failed, so a CI
pipeline can wait on it.

Examples:
  tfgen status mnist
  tfgen status mnist -n team-a -o yaml
  tfgen status mnist --watch`

// statusOptions are the flags of tfgen status.
type statusOptions struct {
	kube   kubeOptions
	Output string
	Watch  bool
}

// AddFlags registers the flags of tfgen status.
func (o *statusOptions) AddFlags(fs *pflag.FlagSet) {
	o.kube.AddFlags(fs)
	fs.StringVarP(&o.Output, "output", "o", "", "output format: yaml or json (default: a report)")
	fs.BoolVarP(&o.Watch, "watch", "w", false, "print the status again on every change until the job ends; exit 1 if it failed")
}

// Validate checks the flags.
func (o *statusOptions) Validate() error {
	switch o.Output {
	case "", "yaml", "json":
		return nil
	}
	return fmt.Errorf("-o %q: want yaml or json", o.Output)
}

func newStatusCmd(s Streams) *cobra.Command {
	o := &statusOptions{}
	cmd := &cobra.Command{
		Use:   "status JOB [flags]",
		Short: "Print a job's status and its replicas'",
		Long:  statusLong,
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

// Run prints the status of job name, once or until it ends.
func (o *statusOptions) Run(cmd *cobra.Command, s Streams, name string) error {
	c, ns, err := o.kube.client(cmd, s)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	if !o.Watch {
		j, err := c.Get(ctx, ns, name)
		if err != nil {
			return err
		}
		v, err := c.View(ctx, j)
		if err != nil {
			return err
		}
		return o.print(s.Out, v, c)
	}
	var last []byte
	var final *operate.Job
	err = c.Watch(ctx, ns, name, func(j *operate.Job) (bool, error) {
		v, err := c.View(ctx, j)
		if err != nil {
			return false, err
		}
		var b bytes.Buffer
		if err := o.print(&b, v, c); err != nil {
			return false, err
		}
		if !bytes.Equal(b.Bytes(), last) {
			if last != nil {
				fmt.Fprint(s.Out, o.separator())
			}
			if _, err := s.Out.Write(b.Bytes()); err != nil {
				return false, err
			}
			last = b.Bytes()
		}
		final = j
		return j.Status.Ended(), nil
	})
	if err != nil {
		return err
	}
	if c := final.Status.Condition(record.JobFailed); c != nil && c.Status == record.ConditionTrue {
		return fmt.Errorf("job %s failed: %s: %s", name, c.Reason, c.Message)
	}
	return nil
}

// print writes v in the chosen format.
func (o *statusOptions) print(w io.Writer, v *operate.View, c *operate.Client) error {
	switch o.Output {
	case "json":
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	case "yaml":
		b, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	return printStatus(w, v, c.Now())
}

// separator goes between two prints of --watch.
func (o *statusOptions) separator() string {
	if o.Output == "yaml" {
		return "---\n"
	}
	return "\n"
}
