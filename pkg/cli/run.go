package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/tfgen/tfgen/pkg/localrun"
	"github.com/tfgen/tfgen/pkg/supervise"
)

const runLong = `Run a job on this machine, every replica as a local process under the same
supervision as in a cluster: see it start, find its peers and finish before
spending a cluster on it.

Each replica runs its training container's command and args; the image is
not used, so the command must exist here. A container without a command
needs --image-entrypoints. Each process gets the environment its pod would:
TF_CONFIG (or MX_CONFIG and DMLC_*) listing every replica on localhost with
a free port of its own (its task entry is the address it must listen on),
POD_NAME (JOB-TYPE-INDEX), POD_NAMESPACE, and the container's env values,
with $(VAR) expanded in them and in the command and args as the kubelet
does. The downward API gives the pod's name, namespace, labels and
annotations; other valueFrom and envFrom are skipped with a warning, as are
volume mounts. --exclude-evaluator
leaves the evaluator out of TF_CONFIG's cluster, as render does: TensorFlow's
ParameterServerStrategy waits for every task in the cluster, and a sidecar
evaluator runs no server. MXNet replicas also get DMLC_NODE_HOST=127.0.0.1
and DMLC_INTERFACE (the loopback interface), so that ps-lite announces a
loopback address.

Restart policies, exit-code rules, backoff, maxRestarts, backoffLimit,
activeDeadlineSeconds, the success policy and cleanPodPolicy work as
tfsupervisor makes them work in a pod. When the job ends, the replicas it
leaves running (parameter servers) get SIGTERM, then SIGKILL after the grace
period (terminationGracePeriodSeconds, default 30s). Ctrl-C stops every
replica the same way; a second Ctrl-C kills them.

Every line a replica writes comes prefixed with its name, as does each
redraw of a progress bar drawn with \r (Keras, tqdm), shown as it comes;
tfgen's own lines say how each replica exits; a table of exit codes and restarts ends
the run. The exit status is 0 when the job succeeded, 1 otherwise.

Examples:
  tfgen run -f examples/local-demo.yaml
  tfgen run -f job.yaml --replicas worker=2,ps=1 --grace-period 5s
  tfgen run -f examples/tf-ps.yaml --exclude-evaluator
  tfgen run -f job.yaml --image-entrypoints images.yaml --restart-backoff 100ms`

// runOptions are the flags of tfgen run.
type runOptions struct {
	input            inputOptions
	Job              string
	Replicas         []string
	GracePeriod      time.Duration
	RestartBackoff   string
	Color            string
	ExcludeEvaluator bool

	counts  map[string]int32
	backoff supervise.Backoff
}

// AddFlags registers the flags of tfgen run.
func (o *runOptions) AddFlags(fs *pflag.FlagSet) {
	o.input.AddFlags(fs)
	_ = fs.MarkHidden("gang-scheduler") // nothing to schedule here
	_ = fs.MarkHidden("locality")
	fs.StringVar(&o.Job, "job", "", "the job to run when the input holds several")
	fs.StringSliceVar(&o.Replicas, "replicas", nil, "TYPE=N: run N replicas of TYPE instead of the job's count (worker=2); repeatable, comma-separated")
	fs.DurationVar(&o.GracePeriod, "grace-period", 0, "SIGTERM to SIGKILL when replicas are stopped (default: each template's terminationGracePeriodSeconds, else 30s)")
	fs.StringVar(&o.RestartBackoff, "restart-backoff", "1s,5m", "INITIAL[,MAX] wait before a restart, doubling, as tfsupervisor's flag")
	fs.BoolVar(&o.ExcludeEvaluator, "exclude-evaluator", false, "leave the evaluator out of TF_CONFIG's cluster, as for render (it still runs)")
	fs.StringVar(&o.Color, "color", "auto", "colour each replica's prefix: auto (when stdout is a terminal and NO_COLOR is unset), always or never")
}

// Validate checks the flags.
func (o *runOptions) Validate() error {
	if err := o.input.Validate(); err != nil {
		return err
	}
	o.counts = map[string]int32{}
	for _, r := range o.Replicas {
		t, n, ok := strings.Cut(r, "=")
		count, err := strconv.ParseInt(n, 10, 32)
		if !ok || t == "" || err != nil {
			return fmt.Errorf("--replicas %q: want TYPE=N, such as worker=2", r)
		}
		o.counts[strings.ToLower(t)] = int32(count)
	}
	if o.GracePeriod < 0 {
		return fmt.Errorf("--grace-period %v: must not be negative", o.GracePeriod)
	}
	var err error
	if o.backoff, err = supervise.ParseBackoff(o.RestartBackoff); err != nil {
		return fmt.Errorf("--%w", err)
	}
	switch o.Color {
	case "auto", "always", "never":
	default:
		return fmt.Errorf("--color %q: want auto, always or never", o.Color)
	}
	return nil
}

func newRunCmd(s Streams) *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run -f PATH [--replicas TYPE=N ...] [flags]",
		Short: "Run a job's replicas as local processes, supervised as in a cluster",
		Long:  runLong,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.input.Files = append(o.input.Files, args...) // -f a.yaml b.yaml, as a shell glob expands
			if err := o.Validate(); err != nil {
				return err
			}
			// Besides the context main cancels on the first interrupt: a
			// second one kills the replicas, and a hang-up stops them
			// rather than leaving them behind. With SIGPIPE caught, a
			// write to a closed stdout fails instead of killing tfgen,
			// and the run stops its replicas.
			sigs, pipe := make(chan os.Signal, 3), make(chan os.Signal, 1)
			signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			signal.Notify(pipe, syscall.SIGPIPE)
			defer signal.Stop(sigs)
			defer signal.Stop(pipe)
			return o.Run(cmd.Context(), s, sigs)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// Run runs the job; sigs are the interrupts tfgen receives.
func (o *runOptions) Run(ctx context.Context, s Streams, sigs <-chan os.Signal) error {
	j, err := loadOne(ctx, &o.input, s, o.Job)
	if err != nil {
		return err
	}
	p, err := localrun.NewPlan(j, localrun.PlanOptions{Replicas: o.counts, GracePeriod: o.GracePeriod, Backoff: &o.backoff,
		ExcludeEvaluator: o.ExcludeEvaluator})
	if errs := flatten(err); len(errs) > 1 {
		lines := make([]string, len(errs))
		for i, e := range errs {
			lines[i] = e.Error()
		}
		return fmt.Errorf("job %s cannot run here:\n  %s", j.Name, strings.Join(lines, "\n  "))
	} else if err != nil {
		return err
	}
	printLines(s, "warning: ", p.Warnings)
	sum, err := localrun.Run(ctx, p, localrun.Options{Out: s.Out, Color: o.colorful(s.Out), Signals: sigs})
	if err != nil {
		return err
	}
	fmt.Fprintln(s.Out)
	if err := sum.WriteTable(s.Out); err != nil {
		return err
	}
	return sum.Err()
}

// colorful reports whether to colour output written to w.
func (o *runOptions) colorful(w io.Writer) bool {
	switch o.Color {
	case "always":
		return true
	case "never":
		return false
	}
	f, ok := w.(interface{ Fd() uintptr })
	return ok && os.Getenv("NO_COLOR") == "" && term.IsTerminal(int(f.Fd()))
}
