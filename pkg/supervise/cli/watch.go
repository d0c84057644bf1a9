//go:build !tfsupervisor_wrap

package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/tfgen/tfgen/pkg/kube"
	"github.com/tfgen/tfgen/pkg/kube/rest"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
	"github.com/tfgen/tfgen/pkg/supervise/address"
	"github.com/tfgen/tfgen/pkg/supervise/podwatch"
	"github.com/tfgen/tfgen/pkg/supervise/relay"
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

With --socket instead of --container, it is the API-facing half of a
wrap-mode replica (the pod's native sidecar): tfsupervisor run --socket in
the training container sends it every report, and it publishes them on the
pod and sends back the job's status. On SIGTERM it serves on until the training container hangs up, at
most --grace-period. With --complete it also ends, without waiting for
SIGTERM, once the training container has hung up and the job has given
the pod back.

Examples:
  tfsupervisor watch --job mnist --roles ps:1:2222,worker:2:2222 \
      --replica-type worker --restart-policy OnFailure --container tensorflow
  tfsupervisor watch --job mnist --roles worker:2:2222 --replica-type worker \
      --socket /tfgen/run/supervisor.sock`

func newWatchCmd(stderr io.Writer) *cobra.Command {
	o := &options{}
	var container string
	cmd := &cobra.Command{
		Use:   "watch [flags] --container NAME | --socket PATH",
		Short: "Follow the training container from beside it (sidecar mode)",
		Long:  watchLong,
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := fromEnv(c.Flags()); err != nil {
				return err
			}
			switch {
			case (container == "") == (o.socket == ""):
				return errors.New("watch needs one of --container (sidecar mode) and --socket (wrap mode)")
			case o.socket != "":
				return o.serve(c.Context(), stderr)
			}
			return o.watch(c.Context(), container, stderr)
		},
	}
	o.AddFlags(cmd.Flags())
	cmd.Flags().StringVar(&container, "container", "", "name of the training container to follow")
	cmd.Flags().BoolVar(&o.publishAddress, "publish-address", false, "publish the pod's address (TFGEN_POD_IPS) for its replica type's headless Service: an EndpointSlice of the pod's own")
	return cmd
}

func (o *options) watch(ctx context.Context, container string, stderr io.Writer) error {
	tuneRuntime(false)
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	cfg, err := o.Config(podIdentity())
	if err != nil {
		return err
	}
	if cfg.Job.RestartScope == supervise.RestartScopeJob {
		return errors.New("restart scope Job restarts training processes in place, which only wrap mode (tfsupervisor run) can do")
	}
	d, client, err := connect(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	if client == nil {
		return errors.New("watch follows its pod through the API server: set KUBERNETES_SERVICE_HOST or KUBECONFIG")
	}
	o.publish(ctx, cfg, client, d.podUID)
	pods := client.WatchPod(ctx, cfg.Job.Namespace, cfg.Pod, cfg.Logf)
	w := &supervise.Watcher{Config: cfg, Statuses: containerStatuses(ctx, pods, container),
		Status: d.status, Reporter: d.reporter, Previous: d.previous, Complete: o.complete}
	res := w.Run(ctx)
	if err := writeTermination(o.terminationLog, res); err != nil {
		cfg.Logf("%v", err)
	}
	if !res.Released {
		return nil // stopped: the pod goes away
	}
	return exitFor(res)
}

// serve is wrap mode's sidecar: it relays the training container's reports
// to the API server and the job's status back.
func (o *options) serve(ctx context.Context, stderr io.Writer) error {
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
		return errors.New("watch --socket publishes through the API server: set KUBERNETES_SERVICE_HOST or KUBECONFIG")
	}
	// Before it listens: the training container waits for it.
	if err := o.refuseSkew(ctx, cfg, d, client, supervise.PodNeeds{RestartRules: o.complete}); err != nil {
		return err
	}
	o.publish(ctx, cfg, client, d.podUID)
	ln, err := relay.Listen(o.socket)
	if err != nil {
		return err
	}
	srv := &relay.Server{Status: d.status, Reporter: d.reporter, Previous: d.previous, Drain: cfg.GracePeriod + drainMargin, Logf: cfg.Logf}
	if o.complete {
		// The training container's supervisor exits once the job gives
		// the pod back (--complete); this one ends with it.
		srv.EndWhen = func(s *record.Status, rec *record.Replica) bool {
			if !cfg.GivenBack(s, rec) {
				return false
			}
			cfg.Logf("the training container has hung up and the job gave the pod back: ending with it")
			return true
		}
	}
	srv.Serve(ctx, ln)
	if ctx.Err() == nil {
		// Ended by EndWhen: the pod ends with this process.
		supervise.DeliverLast(ctx, cfg.Logf, d.reporter)
	}
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
	defer cancel()
	if err := d.reporter.Flush(fctx); err != nil {
		cfg.Logf("deliver reports: %v", err)
	}
	return nil
}

// publish publishes the pod's address, with --publish-address, from a
// goroutine of its own: nothing of the supervisor's waits for it. A
// failure retrying cannot change is logged.
func (o *options) publish(ctx context.Context, cfg *supervise.Config, client *rest.Client, uid string) {
	if !o.publishAddress {
		return
	}
	pod := address.Pod{Namespace: cfg.Job.Namespace, Name: cfg.Pod, UID: uid,
		IPs: strings.Split(os.Getenv(EnvPodIPs), ","),
		Labels: map[string]string{"app.kubernetes.io/instance": cfg.Job.Name, "app.kubernetes.io/managed-by": "tfgen",
			podwatch.LabelJobName: cfg.Job.Name, podwatch.LabelReplicaType: cfg.Self.Type}}
	slices, err := address.Slices(cfg.Job.Layout, cfg.Self.Type, pod)
	if err != nil {
		cfg.Logf("publish the pod's address: %v (%s)", err, EnvPodIPs)
		return
	}
	go func() {
		if err := address.Publish(ctx, client, slices, cfg.Logf); err != nil && ctx.Err() == nil {
			cfg.Logf("%v", err)
		}
	}()
}

// EnvPodIPs holds the pod's IPs (status.podIPs, comma-separated) that
// --publish-address publishes.
const EnvPodIPs = "TFGEN_POD_IPS"

// drainMargin is what the sidecar waits, beyond the training process's
// grace period, for the training container's last report.
const drainMargin = 5 * time.Second

// flushTimeout bounds the delivery of the last reports.
const flushTimeout = 10 * time.Second

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
	// With FallbackToLogsOnError (rendered) the kubelet's message of a
	// failed container is the end of its log, unless it wrote one.
	ex := &supervise.Exit{Code: int(t.ExitCode), Signal: int(t.Signal), Reason: reason, Message: t.Message}
	if t.ExitCode != 0 {
		ex.Tail = t.Message
	}
	ex.At, _ = time.Parse(time.RFC3339, t.FinishedAt)
	return ex
}
