package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tfgen/tfgen/pkg/manifest"
	"github.com/tfgen/tfgen/pkg/values"
)

const valuesLong = `Print the Helm values of one job for the charts/tfjob chart: the job in its
canonical form (a Kubeflow TFJob's spec, whatever dialect it was written in)
plus the render settings under the key tfgen. Installing the chart with them
gives the objects tfgen render gives for the cluster's Kubernetes version:
the chart reads it from the cluster (helm template: from --kube-version).
--kube-version, when given, is written as tfgen.kubeVersion and then wins
over the cluster's.

Examples:
  tfgen values -f examples/tfjob-mnist.yaml > mnist-values.yaml
  tfgen values -f examples/t9k-mnist.yaml | helm template mnist charts/tfjob -f - --kube-version 1.34.0`

// valuesOptions are the flags of tfgen values.
type valuesOptions struct {
	input    inputOptions
	settings settingsOptions
	Job      string
	// KubeVersionGiven says --kube-version was given: the values then
	// carry it as tfgen.kubeVersion.
	KubeVersionGiven bool
}

// AddFlags registers the flags of tfgen values.
func (o *valuesOptions) AddFlags(fs *pflag.FlagSet) {
	o.input.AddFlags(fs)
	o.settings.AddFlags(fs)
	fs.StringVar(&o.Job, "job", "", "the job to use when the input holds several")
}

// Validate checks the flags.
func (o *valuesOptions) Validate() error {
	if err := o.input.Validate(); err != nil {
		return err
	}
	return o.settings.Validate()
}

func newValuesCmd(s Streams) *cobra.Command {
	o := &valuesOptions{}
	cmd := &cobra.Command{
		Use:   "values -f PATH [flags]",
		Short: "Print the Helm chart values of a job",
		Long:  valuesLong,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.input.Files = append(o.input.Files, args...) // -f a.yaml b.yaml, as a shell glob expands
			o.KubeVersionGiven = cmd.Flags().Changed(kubeVersionFlag)
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context(), s)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// Run prints the values as YAML.
func (o *valuesOptions) Run(ctx context.Context, s Streams) error {
	settings, err := o.settings.settings()
	if err != nil {
		return err
	}
	if o.KubeVersionGiven {
		settings.KubeVersion = o.settings.KubeVersion
	}
	j, err := loadOne(ctx, &o.input, s, o.Job)
	if err != nil {
		return err
	}
	b, err := values.Marshal(j, settings)
	if err != nil {
		return err
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	y, err := manifest.MarshalYAML(v)
	if err != nil {
		return fmt.Errorf("values of job %s: %w", j.Name, err)
	}
	_, err = s.Out.Write(y)
	return err
}
