//go:build !tfsupervisor_wrap

package cli

import (
	"context"
	"errors"
	"io"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/tfgen/tfgen/pkg/supervise"
)

const holdLong = `Decide whether this pod's training container may start (sidecar mode's
init container). The kubelet runs the image's entrypoint, which tfsupervisor
cannot hold back once it runs, so a pod recreated after the job ended (by an
eviction, a drain, node loss) or after its replica finished would train
again. tfsupervisor hold reads the job's status first: it exits 0 when the
replica may train; otherwise it reports the replica Idle and waits for
SIGTERM, so that the pod never gets past its init containers.

Example:
  tfsupervisor hold --job mnist --roles ps:1:2222,worker:2:2222 --replica-type worker`

func newHoldCmd(stderr io.Writer) *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:   "hold [flags]",
		Short: "Keep a sidecar-mode pod from training when its replica may not (init container)",
		Long:  holdLong,
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := fromEnv(c.Flags()); err != nil {
				return err
			}
			return o.hold(c.Context(), stderr)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

func (o *options) hold(ctx context.Context, stderr io.Writer) error {
	tuneRuntime(false)
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	cfg, err := o.Config(podIdentity())
	if err != nil {
		return err
	}
	d, client, err := connect(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	if client == nil {
		return errors.New("hold reads the job's status through the API server: set KUBERNETES_SERVICE_HOST or KUBECONFIG")
	}
	// Sidecar mode's training container always has restart rules.
	if err := o.refuseSkew(ctx, cfg, d, client, supervise.PodNeeds{RestartRules: true}); err != nil {
		return err
	}
	held, err := supervise.Hold(ctx, cfg, d.status, d.reporter, d.previous)
	if err != nil || !held {
		return err
	}
	<-ctx.Done()
	return nil
}
