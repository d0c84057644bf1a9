//go:build !tfsupervisor_wrap

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/tfgen/tfgen/pkg/kube/rest"
)

const keepLong = `Keep the job: the pod of the job's keeper (J-keeper-0) runs it.

tfsupervisor keep is the one writer of the job's status. It follows every
replica's record on its pod, derives the job's status from them (success,
failure, restarts granted under backoffLimit, the active deadline, the
clean pod policy, the TTL, an elastic job's size) and writes it into the
record ConfigMap J; and it makes the cluster match the status: the
StatefulSets' replicas (a type given back from the top, released once the
job ended, its own J-keeper last), the scheduling gate tfgen.io/finished on
the template of a type with a finished replica below running ones, and no
such gate on the pod of a replica that may train. It runs in a pod of its
own, so that no replica's pod is kept for it, and so that a pod of a gated
type made again never waits for it.

Example:
  tfsupervisor keep --job mnist --roles ps:1:2222,worker:2:2222 --clean-pod-policy Running`

func newKeepCmd(stderr io.Writer) *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:   "keep [flags]",
		Short: "Keep the job's status and act on it (the keeper's pod)",
		Long:  keepLong,
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := fromEnv(c.Flags()); err != nil {
				return err
			}
			return o.keep(c.Context(), stderr)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

func (o *options) keep(ctx context.Context, stderr io.Writer) error {
	tuneRuntime(false)
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	id := podIdentity()
	job, err := o.Job(id.namespace)
	if err != nil {
		return err
	}
	logf := func(format string, args ...any) { fmt.Fprintf(stderr, "tfsupervisor keep: "+format+"\n", args...) }
	rc, err := rest.LoadConfig()
	if err != nil {
		return err
	}
	if rc == nil {
		return errors.New("keep keeps the job through the API server: set KUBERNETES_SERVICE_HOST or KUBECONFIG")
	}
	if job.Name == "" || id.pod == "" {
		return errors.New("keep needs --job and TFGEN_POD_NAME")
	}
	client, err := rest.New(rc)
	if err != nil {
		return err
	}
	pod, err := ownPod(ctx, client, job.Namespace, id.pod, logf)
	if err != nil {
		return err
	}
	keeper(ctx, job, client, pod, stderr, logf).Run(ctx)
	return nil
}
