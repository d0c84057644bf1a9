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

// connect wires the replica's status and reporter: through the API server
// when there is one (returned too), else in memory and on stderr (with a
// keeper of this replica alone, and no client).
func connect(ctx context.Context, cfg *supervise.Config, stderr io.Writer) (*deps, *rest.Client, error) {
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
	pod, err := ownPod(ctx, client, job.Namespace, cfg.Pod, cfg.Logf)
	if err != nil {
		return nil, nil, err
	}
	labels := map[string]string{LabelReplicaIndex: strconv.Itoa(int(cfg.Self.Index))}
	if cfg.IsMaster() {
		labels[LabelJobRole] = "master"
	}
	d := &deps{status: store(client, job, cfg.Logf), inPod: true, podUID: pod.UID, pod: pod,
		reporter: report.Multi{log, report.NewAPI(client, job.Namespace, cfg.Pod, pod.UID, labels, cfg.Logf)}}
	if rec, ok := record.ReplicaFromAnnotations(pod.Annotations); ok {
		d.previous = &rec
	}
	return d, client, nil
}

// store is the job's record ConfigMap J.
func store(client *rest.Client, job *supervise.Job, logf func(string, ...any)) *record.ConfigMap {
	return &record.ConfigMap{Client: client, Watcher: client, Namespace: job.Namespace, Name: job.Name, Logf: logf}
}

// keeper wires the job's keeper in its own pod: the job's pods
// (podwatch), its status, its StatefulSets, its logs ConfigMap, and the
// job's Events about the keeper's pod.
func keeper(ctx context.Context, job *supervise.Job, client *rest.Client, pod *kube.Pod, stderr io.Writer, logf func(string, ...any)) *supervise.Keeper {
	log := &report.Log{W: stderr, Replica: supervise.KeeperType}
	k := &supervise.Keeper{Job: job, Store: store(client, job, logf), Replicas: podwatch.Start(ctx, client, job.Namespace, job.Name, logf),
		Reporter: report.Multi{log, report.NewAPI(client, job.Namespace, pod.Name, pod.UID, nil, logf)},
		Scaler:   statefulSets{client, job.Namespace, job.Name}, Logs: &record.Logs{Client: client, Namespace: job.Namespace, Name: record.LogsName(job.Name)},
		Logf: logf}
	if job.Elastic != nil {
		k.Neighbours = podwatch.StartNeighbours(ctx, client, job.Namespace, logf)
	}
	return k
}

// ownPod reads pod ns/name, retrying until ctx ends (kube.DefaultRetry):
// a busy API server refuses a thousand supervisors starting at once (429)
// for minutes, and nothing can be done without the pod.
func ownPod(ctx context.Context, client *rest.Client, ns, name string, logf func(string, ...any)) (*kube.Pod, error) {
	var pod *kube.Pod
	err := kube.DefaultRetry.Do(ctx, func(ctx context.Context) (err error) {
		pod, err = client.GetPod(ctx, ns, name)
		return err
	}, func(attempt int, err error, wait time.Duration) {
		if attempt <= 3 || attempt%10 == 0 {
			logf("read own pod: %v; again in %v", err, wait.Round(time.Millisecond))
		}
	})
	if err != nil {
		return nil, fmt.Errorf("read own pod %s/%s: %w", ns, name, err)
	}
	return pod, nil
}

// statefulSets scales the job's StatefulSets, J-<type>, through their
// scale subresource, and gates their pods.
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

// Gate implements supervise.Scaler: the gate is patched into type t's
// template, then the StatefulSet read until its controller has seen that
// generation (status.observedGeneration), so that every pod it makes from
// then on is gated.
func (s statefulSets) Gate(ctx context.Context, t string) error {
	name := s.job + "-" + t
	gen, err := s.client.GateStatefulSet(ctx, s.ns, name, supervise.FinishedGate)
	if err != nil {
		return err
	}
	return observedRetry.Do(ctx, func(ctx context.Context) error {
		seen, err := s.client.StatefulSetObserved(ctx, s.ns, name)
		if err == nil && seen < gen {
			err = fmt.Errorf("statefulset %s/%s: its controller has seen generation %d of %d", s.ns, name, seen, gen)
		}
		return err
	}, nil)
}

// observedRetry paces the reads of a StatefulSet whose controller has not
// yet seen its new template: it sees it within a watch event's round
// trip.
var observedRetry = kube.Retry{Initial: 20 * time.Millisecond, Max: 500 * time.Millisecond}

// Lift implements supervise.Scaler.
func (s statefulSets) Lift(ctx context.Context, l supervise.Lift) error {
	err := s.client.LiftPodGate(ctx, s.ns, l.Pod, l.UID, supervise.FinishedGate)
	if kube.IsNotFound(err) || kube.IsConflict(err) {
		return nil // gone, or made again: the keeper sees it anew
	}
	return err
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
	d, _, err := connect(ctx, cfg, stderr)
	return d, err
}
