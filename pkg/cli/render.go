package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tfgen/tfgen/pkg/check"
	"github.com/tfgen/tfgen/pkg/job"
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
SIGINT or SIGTERM stops the render, with exit status 130 or 143: nothing
is written, unless the output had begun to stream to stdout, where it
stops part way.

--locality node asks the scheduler (preferred pod affinity) to put workers
on a parameter server's node and the job's replicas on one node; zone does
the same by zone. It is the default for DRAGON jobs (min/max-instances),
none for the others; the job's annotation tfgen.io/locality wins.

-o DIR writes one file per object, a kustomization.yaml and .tfgen-output,
tfgen's mark listing them; it replaces DIR only when DIR is empty or
carries the mark and holds nothing else, so it never deletes a directory
written by hand.

Examples:
  tfgen render -f examples/tfjob-mnist.yaml | kubectl apply -f -
  tfgen render -f jobs/ -n team-a -o rendered/
  cat job.yaml | tfgen render -f - --format json --cloud gke
  tfgen render -f examples/tfjob-mnist.yaml --locality zone`

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
	fs.StringVarP(&o.OutDir, "output-dir", "o", "", "write one file per object and a kustomization.yaml into this directory instead of stdout; replaced atomically, only when empty or written by tfgen")
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
			return o.Run(cmd.Context(), s)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// Run renders, checks and writes, one document at a time: the output is
// kept aside (see output.Writer) and written only when every document
// rendered, and nothing is written when ctx ends first.
func (o *renderOptions) Run(ctx context.Context, s Streams) error {
	if ctx == nil {
		ctx = context.Background()
	}
	settings, err := o.settings.settings()
	if err != nil {
		return err
	}
	l, err := newLoader(&o.input)
	if err != nil {
		return err
	}
	r, err := render.New(templates.FS)
	if err != nil {
		return err
	}
	w, err := o.writer(interruptible(ctx, s.Out))
	if err != nil {
		return err
	}
	defer w.Discard()
	objects := newObjectIndex()
	var notes []string
	var werr error
	err = l.each(ctx, s.In, func(u unit) {
		items, err := renderUnit(r, u, settings, o.settings.capabilities())
		if err != nil {
			l.problems.add(err)
			return
		}
		objs := make([]manifest.Object, len(items))
		for i, it := range items {
			objs[i] = it.Object
		}
		if errs := objects.add(originOf(u.doc, u.job), objs); len(errs) > 0 {
			l.problems.add(errors.Join(errs...))
			return
		}
		if u.job != nil {
			notes = append(notes, sidecarNotes(u)...)
			l.warnings = append(l.warnings, kueueSidecarWarnings(u)...)
		}
		// Once a document has a problem nothing will be written: the
		// rest are only checked.
		for _, it := range items {
			if werr == nil && l.problems.err() == nil {
				werr = w.Add(it)
			}
		}
	})
	printLines(s, "warning: ", l.warnings)
	if err != nil {
		return fmt.Errorf("%w; nothing was written", err)
	}
	if err := l.problems.err(); err != nil {
		return err
	}
	if werr != nil {
		return werr
	}
	if err := context.Cause(ctx); err != nil {
		return fmt.Errorf("%w; nothing was written", err)
	}
	if err := w.Commit(); err != nil {
		if cause := context.Cause(ctx); cause != nil && errors.Is(err, cause) {
			return fmt.Errorf("%w; the output on stdout stops part way", cause)
		}
		return err
	}
	printLines(s, "note: ", notes)
	return nil
}

// writer returns where the output goes: -o DIR, else stdout.
func (o *renderOptions) writer(out io.Writer) (output.Writer, error) {
	if o.OutDir != "" {
		return output.NewDirWriter(o.OutDir)
	}
	return output.NewStreamWriter(out, output.Format(o.Format))
}

// renderUnit returns the items of one unit: a pass-through document as it
// came, or a job's objects rendered for the cluster c and checked.
func renderUnit(r *render.Renderer, u unit, settings job.Settings, c render.Capabilities) ([]output.Item, error) {
	if u.job == nil {
		obj, err := manifest.Parse(u.doc.Raw)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", u.doc.Name(), u.doc.Line, err)
		}
		raw := u.doc.Raw
		if u.doc.Item > 0 {
			raw = nil // a List item is JSON, written as the output is
		}
		return []output.Item{{Object: obj, Raw: raw}}, nil
	}
	if err := envSize(u.job, settings); err != nil {
		return nil, err
	}
	helmFile := takeHelmFilename(u.job)
	objs, err := r.Render(u.job, settings, c)
	if err == nil {
		err = check.Objects(objs)
	}
	if err == nil {
		err = recordSize(u.job, objs)
	}
	if err != nil {
		return nil, prefixed(fmt.Sprintf("%s: %s %s: ", u.doc.Name(), u.job.Source.Kind, u.job.Name), err)
	}
	if helmFile != "" {
		setHelmFilename(objs, helmFile)
	}
	items := make([]output.Item, len(objs))
	for i, o := range objs {
		items[i] = output.Item{Object: o}
	}
	return items, nil
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

// kueueSidecarWarnings warns, for a job Kueue admits, of each replica type
// rendered in sidecar mode: once such a replica has finished, its
// training container has ended and its pod is not Ready, nor is one made
// again for it (it waits in tfgen-hold), and Kueue's waitForPodsReady
// evicts a job whose pods have not all been Ready for its recoveryTimeout
// (README, Kueue). In wrap mode a finished replica's pod stays Ready; a
// job of one pod ends with it.
func kueueSidecarWarnings(u unit) []string {
	var pods int32
	for _, s := range u.job.Replicas() {
		pods += s.Count()
	}
	if !u.job.Kueue() || pods < 2 {
		return nil
	}
	var out []string
	for _, t := range values.SidecarReplicas(u.job) {
		out = append(out, fmt.Sprintf("%s: %s %s: replica type %s runs in sidecar mode under Kueue: once one of its replicas has finished, its pod is not Ready, and Kueue's waitForPodsReady (on by default from v0.19) evicts the job once that has lasted its recoveryTimeout; a command for the container (or --image-entrypoints) keeps a finished replica's pod Ready",
			u.doc.Name(), u.job.Source.Kind, u.job.Name, t))
	}
	return out
}

// printLines prints each line with prefix, control characters escaped so
// that a user's value cannot start a line of its own.
func printLines(s Streams, prefix string, lines []string) {
	for _, l := range lines {
		fmt.Fprintln(s.ErrOut, prefix+oneLine(strings.TrimPrefix(l, prefix)))
	}
}
