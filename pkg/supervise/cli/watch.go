package cli

import (
	"context"
	"errors"
	"io"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/tfgen/tfgen/pkg/kube"
	"github.com/tfgen/tfgen/pkg/supervise"
)

const watchLong = `Follow the training container of this pod (sidecar mode), for training
containers whose command is not known, so cannot be wrapped.

tfsupervisor watch runs as a second container of the pod. It watches its own
pod through the API server, reads each exit of the training container
(--container) from the pod's status as the kubelet writes it, and does all
that follows an exit as in wrap mode (record, job outcome, reports, teardown,
deadline, backoffLimit), while the kubelet restarts the container by its
restart policy. It keeps running after the training container finished, so
the pod stays and nothing trains again, until SIGTERM.

Example:
  tfsupervisor watch --job mnist --roles ps:1:2222,worker:2:2222 \
      --replica-type worker --restart-policy OnFailure --container tensorflow`

func newWatchCmd(stderr io.Writer) *cobra.Command {
	o := &options{}
	var container string
	cmd := &cobra.Command{
		Use:   "watch [flags] --container NAME",
		Short: "Follow the training container from beside it (sidecar mode)",
		Long:  watchLong,
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := fromEnv(c.Flags()); err != nil {
				return err
			}
			if container == "" {
				return errors.New("watch needs --container")
			}
			return o.watch(c.Context(), container, stderr)
		},
	}
	o.AddFlags(cmd.Flags())
	cmd.Flags().StringVar(&container, "container", "", "name of the training container to follow")
	return cmd
}

func (o *options) watch(ctx context.Context, container string, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	cfg, err := o.Config(podIdentity())
	if err != nil {
		return err
	}
	if cfg.RestartScope == supervise.RestartScopeJob {
		return errors.New("restart scope Job restarts training processes in place, which only wrap mode (tfsupervisor run) can do")
	}
	d, err := connect(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	if d.client == nil {
		return errors.New("watch follows its pod through the API server: set KUBERNETES_SERVICE_HOST or KUBECONFIG")
	}
	stopKeeper := d.keep(ctx)
	pods := d.client.WatchPod(ctx, cfg.Namespace, cfg.Pod, cfg.Logf)
	w := &supervise.Watcher{Config: cfg, Statuses: containerStatuses(ctx, pods, container),
		Store: d.store, Reporter: d.reporter, Teardown: d.teardown, Previous: d.previous}
	res := w.Run(ctx)
	stopKeeper()
	if err := writeTermination(o.terminationLog, res); err != nil {
		cfg.Logf("%v", err)
	}
	return nil
}

// containerStatuses picks container's status out of each pod.
func containerStatuses(ctx context.Context, pods <-chan *kube.Pod, container string) <-chan supervise.ContainerStatus {
	out := make(chan supervise.ContainerStatus)
	go func() {
		defer close(out)
		for p := range pods {
			for _, cs := range p.Status.ContainerStatuses {
				if cs.Name != container {
					continue
				}
				st := supervise.ContainerStatus{PodUID: string(p.UID), RestartCount: cs.RestartCount, Disruption: p.Disruption(),
					Running: cs.State.Running != nil, Terminated: exitOf(cs.State.Terminated), LastTerminated: exitOf(cs.LastState.Terminated)}
				select {
				case out <- st:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out
}

func exitOf(t *kube.ContainerStateTerminated) *supervise.Exit {
	if t == nil {
		return nil
	}
	reason := t.Reason
	if reason == "" {
		reason = "Error"
		if t.ExitCode == 0 {
			reason = "Completed"
		}
	}
	return &supervise.Exit{Code: int(t.ExitCode), Signal: int(t.Signal), Reason: reason, Message: t.Message}
}
