//go:build !tfsupervisor_wrap

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/tfgen/tfgen/pkg/kube"
	"github.com/tfgen/tfgen/pkg/kube/rest"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
	"github.com/tfgen/tfgen/pkg/supervise/podwatch"
	"github.com/tfgen/tfgen/pkg/supervise/report"
)

// Kubeflow pod labels that need the replica's ordinal.
const (
	LabelReplicaIndex = "training.kubeflow.org/replica-index"
	LabelJobRole      = "training.kubeflow.org/job-role"
)

// connect wires the status, the reporter and, in the keeper's replica
// when keep is set, the keeper: through the API server when there is
// one (returned too), else in memory and on stderr (with a keeper of this
// replica alone, and no client).
func connect(ctx context.Context, cfg *supervise.Config, keep bool, stderr io.Writer) (*deps, *rest.Client, error) {
	log := &report.Log{W: stderr, Replica: cfg.Self.String()}
	rc, err := rest.LoadConfig()
	if err != nil {
		return nil, nil, err
	}
	if rc == nil {
		return standalone(cfg, stderr), nil, nil
	}
	job := cfg.Job
	if job.Name == "" || cfg.Pod == "" {
		return nil, nil, errors.New("reporting to the cluster needs --job and POD_NAME")
	}
	client, err := rest.New(rc)
	if err != nil {
		return nil, nil, err
	}
	pod, err := ownPod(ctx, client, cfg)
	if err != nil {
		return nil, nil, err
	}
	labels := map[string]string{LabelReplicaIndex: strconv.Itoa(int(cfg.Self.Index))}
	if cfg.IsMaster() {
		labels[LabelJobRole] = "master"
	}
	store := func() *record.ConfigMap {
		return &record.ConfigMap{Client: client, Watcher: client, Namespace: job.Namespace, Name: job.Name, Logf: cfg.Logf}
	}
	reporters := report.Multi{log, report.NewAPI(client, job.Namespace, cfg.Pod, pod.UID, labels, cfg.Logf)}
	d := &deps{status: store(), inPod: true, podUID: pod.UID, pod: pod}
	if rec, ok := record.ReplicaFromAnnotations(pod.Annotations); ok {
		d.previous = &rec
	}
	if keep && cfg.IsKeeper() {
		pods := podwatch.Start(ctx, client, job.Namespace, job.Name, cfg.Logf)
		reporters = append(reporters, pods.Reporter(cfg.Pod))
		events := report.Multi{log, report.NewAPI(client, job.Namespace, cfg.Pod, pod.UID, nil, cfg.Logf)}
		logs := &record.Logs{Client: client, Namespace: job.Namespace, Name: record.LogsName(job.Name)}
		d.keeper = &supervise.Keeper{Job: job, Store: store(), Reporter: events, Scaler: statefulSets{client, job.Namespace, job.Name},
			Replicas: pods, Logs: logs, Logf: cfg.Logf}
		if job.Elastic != nil {
			d.keeper.Neighbours = podwatch.StartNeighbours(ctx, client, job.Namespace, cfg.Logf)
		}
	}
	d.reporter = reporters
	return d, client, nil
}

// ownPod reads the replica's pod, retrying until ctx ends (kube.DefaultRetry):
// a busy API server refuses a thousand supervisors starting at once (429)
// for minutes, and nothing can be done without the pod.
func ownPod(ctx context.Context, client *rest.Client, cfg *supervise.Config) (*kube.Pod, error) {
	var pod *kube.Pod
	err := kube.DefaultRetry.Do(ctx, func(ctx context.Context) (err error) {
		pod, err = client.GetPod(ctx, cfg.Job.Namespace, cfg.Pod)
		return err
	}, func(attempt int, err error, wait time.Duration) {
		if attempt <= 3 || attempt%10 == 0 {
			cfg.Logf("read own pod: %v; again in %v", err, wait.Round(time.Millisecond))
		}
	})
	if err != nil {
		return nil, fmt.Errorf("read own pod %s/%s: %w", cfg.Job.Namespace, cfg.Pod, err)
	}
	return pod, nil
}

// statefulSets scales the job's StatefulSets, J-<type>, through their
// scale subresource.
type statefulSets struct {
	client  *rest.Client
	ns, job string
}

var _ supervise.Scaler = statefulSets{}

// Scale implements supervise.Scaler.
func (s statefulSets) Scale(ctx context.Context, t string, n int32) error {
	if err := s.client.ScaleStatefulSet(ctx, s.ns, s.job+"-"+t, n); err != nil && !kube.IsNotFound(err) {
		return err
	}
	return nil
}

// Replicas implements supervise.Scaler.
func (s statefulSets) Replicas(ctx context.Context, t string) (int32, bool, error) {
	n, err := s.client.StatefulSetReplicas(ctx, s.ns, s.job+"-"+t)
	if kube.IsNotFound(err) {
		return 0, false, nil
	}
	return n, err == nil, err
}

// The API client is what the record, the reports and the keeper's pod
// watches take.
var (
	_ record.ConfigMapClient  = (*rest.Client)(nil)
	_ record.ConfigMapWatcher = (*rest.Client)(nil)
	_ report.PodClient        = (*rest.Client)(nil)
)

// wire connects run: through the sidecar at --socket, else (no sidecar)
// through the API server itself, or standalone.
func (o *options) wire(ctx context.Context, cfg *supervise.Config, stderr io.Writer) (*deps, error) {
	if o.socket != "" {
		return relayed(ctx, cfg, o.socket, stderr)
	}
	d, _, err := connect(ctx, cfg, true, stderr)
	return d, err
}
