package cli

import (
	"context"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/tfgen/tfgen/pkg/supervise"
	"github.com/tfgen/tfgen/pkg/supervise/capture"
	"github.com/tfgen/tfgen/pkg/supervise/proc"
)

const runLong = `Run CMD as the replica's training process and supervise it (wrap mode).

CMD gets TF_CONFIG (or MX_CONFIG and DMLC_*) computed from --roles, the
ordinal at the end of POD_NAME and POD_NAMESPACE. It runs in a process group
of its own; every signal but SIGCHLD and SIGURG is forwarded to the group;
SIGTERM is forwarded, and the group is killed after --grace-period. Exits are
handled by --restart-policy, with --restart-backoff between restarts, at most
--max-restarts per replica and --backoff-limit for the whole job, until
--active-deadline. tfsupervisor exits with CMD's last exit code (128+n after
signal n, 127 when CMD is not found, 126 when it cannot be run).

With --socket (wrap mode in a pod, as tfgen renders it) the training
container holds no API credentials: every report goes over the Unix socket
to tfsupervisor watch --socket, the pod's native sidecar, which publishes
it on the pod and sends back the job's status.

A replica whose job has ended, or which has already succeeded, does not train
again: it idles until SIGTERM and exits 0.

Examples:
  tfsupervisor run --job mnist --roles chief:1:2222,worker:2:2222 \
      --replica-type worker --restart-policy ExitCode -- python train.py
  TFSUPERVISOR_RESTART_POLICY=OnFailure tfsupervisor run -- ./train.sh`

func newRunCmd(stderr io.Writer) *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:   "run [flags] -- CMD [ARGS...]",
		Short: "Run and supervise the training process (wrap mode)",
		Long:  runLong,
		Args:  cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return o.run(c.Context(), c.Flags(), args, stderr)
		},
	}
	cmd.Flags().SetInterspersed(false)
	o.AddFlags(cmd.Flags())
	return cmd
}

func (o *options) run(ctx context.Context, fs *pflag.FlagSet, args []string, stderr io.Writer) error {
	// Catch signals first. The relay is never stopped: the process ends
	// with the command, and stopping it would cost a round trip to the
	// runtime per signal. Catching them all takes about a millisecond, done
	// while the rest gets ready; the training process waits for it.
	sigs, ready := proc.Signals()
	if err := fromEnv(fs); err != nil {
		return err
	}
	cfg, err := o.Config(podIdentity())
	if err != nil {
		return err
	}
	if err := clusterEnvFits(cfg); err != nil {
		return err
	}
	var d *deps
	if o.socket != "" {
		d, err = relayed(ctx, cfg, o.socket, stderr)
	} else {
		d, err = connect(ctx, cfg, true, stderr)
	}
	if err != nil {
		return err
	}
	stopKeeper := d.keep(ctx)
	// In a pod the supervisor stays once its replica is done: the kubelet
	// would only start it again, and it may host the job's keeper.
	sup := &supervise.Supervisor{Config: cfg, Runner: proc.GatedRunner{Runner: proc.NewRunner(cfg.Logf), Ready: ready}, Status: d.status,
		Reporter: d.reporter, Signals: sigs, Previous: d.previous, Linger: d.inPod, ClusterEnv: true}
	// The end of the output goes into the replica's record, where it
	// outlives the pod. A terminal (tty: true) is left to the process.
	if !term.IsTerminal(int(os.Stdout.Fd())) {
		sup.Output = &capture.Output{Stdout: os.Stdout, Stderr: os.Stderr}
	}
	res := sup.Run(ctx, supervise.Command{Args: args, Env: os.Environ()})
	stopKeeper()
	if err := writeTermination(o.terminationLog, res); err != nil {
		cfg.Logf("%v", err)
	}
	if res.ExitCode != 0 {
		return &ExitError{Code: res.ExitCode}
	}
	return nil
}
