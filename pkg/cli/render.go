package cli

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tfgen/tfgen/pkg/check"
	"github.com/tfgen/tfgen/pkg/manifest"
	"github.com/tfgen/tfgen/pkg/output"
	"github.com/tfgen/tfgen/pkg/render"
	"github.com/tfgen/tfgen/pkg/values"
	"github.com/tfgen/tfgen/templates"
)

const renderLong = `Render every training job in the input into plain Kubernetes objects:
per replica type a StatefulSet and a headless Service, the job's
ServiceAccount, Role and RoleBinding, its record ConfigMap, and TensorBoard
and gang-scheduling objects when the job asks for them. Documents of other
kinds pass through unchanged.

A container with a command is wrapped by tfsupervisor (wrap mode); one
without runs beside a tfsupervisor container (sidecar mode, Kubernetes 1.35
or later), and a note on stderr names it. --image-entrypoints supplies the
commands of such images so that they are wrapped too.

Every problem in every document is reported at once on stderr, with exit
status 1; then nothing is written to stdout or the output directory.

Examples:
  tfgen render -f examples/tfjob-mnist.yaml | kubectl apply -f -
  tfgen render -f jobs/ -n team-a -o rendered/
  cat job.yaml | tfgen render -f - --format json --cloud gke`

// renderOptions are the flags of tfgen render.
type renderOptions struct {
	input    inputOptions
	settings settingsOptions
	OutDir   string
	Format   string
}

// AddFlags registers the flags of tfgen render.
func (o *renderOptions) AddFlags(fs *pflag.FlagSet) {
	o.input.AddFlags(fs)
	o.settings.AddFlags(fs)
	fs.StringVarP(&o.OutDir, "output-dir", "o", "", "write one file per object and a kustomization.yaml into this directory (replaced atomically) instead of stdout")
	fs.StringVar(&o.Format, "format", "yaml", "stdout format: yaml (a --- separated stream) or json (a v1 List)")
}

// Validate checks the flags.
func (o *renderOptions) Validate() error {
	if err := o.input.Validate(); err != nil {
		return err
	}
	if o.Format != string(output.YAML) && o.Format != string(output.JSON) {
		return fmt.Errorf("--format %q: want yaml or json", o.Format)
	}
	if o.OutDir != "" && o.Format != string(output.YAML) {
		return fmt.Errorf("--format json writes to stdout; -o DIR writes YAML files")
	}
	return o.settings.Validate()
}

func newRenderCmd(s Streams) *cobra.Command {
	o := &renderOptions{}
	cmd := &cobra.Command{
		Use:   "render -f PATH... [flags]",
		Short: "Render training jobs into plain Kubernetes objects",
		Long:  renderLong,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.input.Files = append(o.input.Files, args...) // -f a.yaml b.yaml, as a shell glob expands
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(s)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// Run renders, checks and writes.
func (o *renderOptions) Run(s Streams) error {
	settings, err := o.settings.settings()
	if err != nil {
		return err
	}
	l, err := load(&o.input, s.In)
	if err != nil {
		return err
	}
	r, err := render.New(templates.FS)
	if err != nil {
		return err
	}
	var items []output.Item
	var notes []string
	for _, u := range l.units {
		if u.job == nil {
			obj, err := manifest.Parse(u.doc.Raw)
			if err != nil {
				l.problems.add(fmt.Errorf("%s:%d: %w", u.doc.Name(), u.doc.Line, err))
				continue
			}
			items = append(items, output.Item{Object: obj, Raw: u.doc.Raw})
			continue
		}
		if err := envSize(u.job, settings); err != nil {
			l.problems.add(err)
			continue
		}
		helmFile := takeHelmFilename(u.job)
		objs, err := r.Render(u.job, settings)
		if err == nil {
			err = check.Objects(objs)
		}
		if err != nil {
			l.problems.add(fmt.Errorf("%s: %s %s: %w", u.doc.Name(), u.job.Source.Kind, u.job.Name, err))
			continue
		}
		if helmFile != "" {
			setHelmFilename(objs, helmFile)
		}
		for _, o := range objs {
			items = append(items, output.Item{Object: o})
		}
		notes = append(notes, sidecarNotes(u)...)
	}
	printLines(s, "warning: ", l.warnings)
	if err := l.problems.err(); err != nil {
		return err
	}
	if o.OutDir != "" {
		err = output.WriteDir(o.OutDir, items)
	} else {
		var buf bytes.Buffer
		if err = output.Write(&buf, items, output.Format(o.Format)); err == nil {
			_, err = s.Out.Write(buf.Bytes())
		}
	}
	if err != nil {
		return err
	}
	printLines(s, "note: ", notes)
	return nil
}

// sidecarNotes names each replica type of u's job rendered in sidecar mode.
func sidecarNotes(u unit) []string {
	var notes []string
	for _, t := range values.SidecarReplicas(u.job) {
		ps := u.job.Replicas()[t].Template.Spec
		c := ps.Containers[values.TrainingContainer(u.job.Framework(), &ps)]
		notes = append(notes, fmt.Sprintf("%s: %s %s: replica type %s runs in sidecar mode (container %q has no command; needs Kubernetes 1.35+); --image-entrypoints with an entry for %s would wrap it",
			u.doc.Name(), u.job.Source.Kind, u.job.Name, t, c.Name, c.Image))
	}
	return notes
}

func printLines(s Streams, prefix string, lines []string) {
	for _, l := range lines {
		fmt.Fprintln(s.ErrOut, prefix+strings.TrimPrefix(l, prefix))
	}
}
