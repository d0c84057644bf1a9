package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/values"
)

const envLong = `Print, as KEY=VALUE lines, the environment tfsupervisor gives one replica
of a job: TF_CONFIG for TensorFlow, MX_CONFIG and the DMLC_* variables for
MXNet. It uses the same package as tfsupervisor, so what it prints is what
the pod gets (nothing, for a TensorFlow job with a single replica).

Examples:
  tfgen env -f examples/tfjob-mnist.yaml --replica worker-1
  tfgen env -f examples/mxjob-linear.yaml --replica server-0 -n team-a`

// envOptions are the flags of tfgen env.
type envOptions struct {
	input            inputOptions
	Job              string
	Replica          string
	ClusterDomain    string
	ExcludeEvaluator bool
}

// AddFlags registers the flags of tfgen env.
func (o *envOptions) AddFlags(fs *pflag.FlagSet) {
	o.input.AddFlags(fs)
	_ = fs.MarkHidden("evaluator-grace") // no supervision here
	_ = fs.MarkHidden("restart-scope")
	_ = fs.MarkHidden("locality") // no scheduling here
	fs.StringVar(&o.Job, "job", "", "the job to use when the input holds several")
	fs.StringVar(&o.Replica, "replica", "", "the replica, TYPE-INDEX: worker-0, ps-1, chief-0")
	fs.StringVar(&o.ClusterDomain, "cluster-domain", "", "cluster domain appended to replica addresses, as for render")
	fs.BoolVar(&o.ExcludeEvaluator, "exclude-evaluator", false, "leave the evaluator out of TF_CONFIG's cluster, as for render")
}

// Validate checks the flags.
func (o *envOptions) Validate() error {
	if err := o.input.Validate(); err != nil {
		return err
	}
	if _, _, err := o.replica(); err != nil {
		return err
	}
	return checkClusterDomain(o.ClusterDomain)
}

// replica splits --replica into a lowercase type and an index.
func (o *envOptions) replica() (string, int32, error) {
	i := strings.LastIndexByte(o.Replica, '-')
	if i <= 0 {
		return "", 0, fmt.Errorf("--replica %q: want TYPE-INDEX, such as worker-0", o.Replica)
	}
	n, err := strconv.ParseInt(o.Replica[i+1:], 10, 32)
	if err != nil || n < 0 {
		return "", 0, fmt.Errorf("--replica %q: the index must be a whole number", o.Replica)
	}
	return strings.ToLower(o.Replica[:i]), int32(n), nil
}

func newEnvCmd(s Streams) *cobra.Command {
	o := &envOptions{}
	cmd := &cobra.Command{
		Use:   "env -f PATH --replica TYPE-INDEX [flags]",
		Short: "Print the environment tfsupervisor gives one replica",
		Long:  envLong,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.input.Files = append(o.input.Files, args...) // -f a.yaml b.yaml, as a shell glob expands
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context(), s)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// Run prints the environment.
func (o *envOptions) Run(ctx context.Context, s Streams) error {
	j, err := loadOne(ctx, &o.input, s, o.Job)
	if err != nil {
		return err
	}
	typ, index, _ := o.replica()
	ns := j.Namespace
	if ns == "" {
		ns = "default"
	}
	layout := values.Layout(j, job.Settings{ClusterDomain: o.ClusterDomain, ExcludeEvaluator: o.ExcludeEvaluator})
	env, err := layout.Env(typ, index, ns)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, e := range env {
		fmt.Fprintf(&b, "%s=%s\n", e.Name, e.Value)
	}
	_, err = fmt.Fprint(s.Out, b.String())
	return err
}
