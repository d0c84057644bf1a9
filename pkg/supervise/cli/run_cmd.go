//go:build !tfsupervisor_wrap

package cli

import (
	"io"

	"github.com/spf13/cobra"
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
