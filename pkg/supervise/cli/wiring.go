package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/tfgen/tfgen/pkg/kube"
	"github.com/tfgen/tfgen/pkg/kube/rest"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
	"github.com/tfgen/tfgen/pkg/supervise/board"
	"github.com/tfgen/tfgen/pkg/supervise/podwatch"
	"github.com/tfgen/tfgen/pkg/supervise/relay"
	"github.com/tfgen/tfgen/pkg/supervise/report"
)

// Kubeflow pod labels that need the replica's ordinal.
const (
	LabelReplicaIndex = "training.kubeflow.org/replica-index"
	LabelJobRole      = "training.kubeflow.org/job-role"
)

// deps are supervise's real parts.
type deps struct {
	status   record.Source
	reporter supervise.Reporter
	previous *record.Replica // the replica's record as its pod carries it
	client   *rest.Client    // nil when standalone or relayed
	keeper   *supervise.Keeper
	inPod    bool // supervising in a pod: the replica lingers when done
}

// connect wires the status, the reporter and, in the keeper's replica
// when keep is set, the keeper: through the API server when there is
// one, else in memory and on stderr (with a keeper of this replica
// alone).
func connect(ctx context.Context, cfg *supervise.Config, keep bool, stderr io.Writer) (*deps, error) {
	log := &report.Log{W: stderr, Replica: cfg.Self.String()}
	rc, err := rest.LoadConfig()
	if err != nil {
		return nil, err
	}
	if rc == nil {
		cfg.Logf("no cluster (neither KUBERNETES_SERVICE_HOST nor KUBECONFIG is set): supervising standalone, reporting to stderr")
		b, store := board.New(), &record.Memory{}
		d := &deps{status: store, reporter: report.Multi{log, b.Reporter(cfg.Self)}}
		d.keeper = &supervise.Keeper{Job: cfg.Job, Replicas: b, Store: store, Reporter: log, Logf: cfg.Logf}
		return d, nil
	}
	job := cfg.Job
	if job.Name == "" || cfg.Pod == "" {
		return nil, errors.New("reporting to the cluster needs --job and POD_NAME")
	}
	client, err := rest.New(rc)
	if err != nil {
		return nil, err
	}
	pod, err := ownPod(ctx, client, cfg)
	if err != nil {
		return nil, err
	}
	labels := map[string]string{LabelReplicaIndex: strconv.Itoa(int(cfg.Self.Index))}
	if cfg.IsMaster() {
		labels[LabelJobRole] = "master"
	}
	store := func() *record.ConfigMap {
		return &record.ConfigMap{Client: client, Watcher: client, Namespace: job.Namespace, Name: job.Name, Logf: cfg.Logf}
	}
	reporters := report.Multi{log, report.NewAPI(client, job.Namespace, cfg.Pod, pod.UID, labels, cfg.Logf)}
	d := &deps{status: store(), client: client, inPod: true}
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
	return d, nil
}

// relayTimeout bounds the wait for the sidecar's socket at start (the
// kubelet starts the sidecar first, but need not wait for it to listen).
const relayTimeout = time.Minute

// relayed wires the record and reporter through the sidecar at socket:
// the training container's supervisor holds no API credentials.
func relayed(ctx context.Context, cfg *supervise.Config, socket string, stderr io.Writer) (*deps, error) {
	dctx, cancel := context.WithTimeout(ctx, relayTimeout)
	defer cancel()
	c, prev, err := relay.Dial(dctx, socket, cfg.Logf)
	if err != nil {
		return nil, err
	}
	return &deps{status: c, reporter: report.Multi{&report.Log{W: stderr, Replica: cfg.Self.String()}, c}, previous: prev, inPod: true}, nil
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

// keep runs the keeper, if there is one, until the returned stop is
// called; stop waits for its last write.
func (d *deps) keep(ctx context.Context) (stop func()) {
	if d.keeper == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.keeper.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// clusterEnvFits checks, before anything runs, that the job's layout as
// rendered gives this replica a cluster environment (TF_CONFIG, say) the
// kernel takes; a replica past the rendered count (a resize made it) is
// checked as the last. The supervisor builds it again at each start, from
// the layout as the job's status then has it.
func clusterEnvFits(cfg *supervise.Config) error {
	l := cfg.Job.Layout
	r, ok := l.Role(cfg.Self.Type)
	if !ok {
		return nil
	}
	_, err := l.Scaled(map[string]int32{r.Type: max(r.Replicas, cfg.Self.Index+1)}).Env(cfg.Self.Type, cfg.Self.Index, cfg.Job.Namespace)
	return err
}

// MaxTerminationMessage is what the kubelet keeps of a container's
// termination message.
const MaxTerminationMessage = 4096

// DefaultTerminationLog is the kubelet's default terminationMessagePath.
const DefaultTerminationLog = "/dev/termination-log"

// writeTermination writes r as one JSON line to path, once. It writes a
// temporary file and renames it into place; where that cannot work (the
// kubelet bind-mounts /dev/termination-log, and a mount point cannot be
// replaced) it writes the line with a single write. The default path is
// only written when it exists, i.e. in a container.
func writeTermination(path string, r supervise.Result) error {
	if path == "" {
		return nil
	}
	if _, err := os.Stat(path); path == DefaultTerminationLog && err != nil {
		return nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if len(b)+1 > MaxTerminationMessage {
		r.Reason = r.Reason[:max(0, len(r.Reason)-(len(b)+1-MaxTerminationMessage))]
		b, _ = json.Marshal(r)
	}
	b = append(b, '\n')
	if tmp, err := os.CreateTemp(filepath.Dir(path), ".termination-*"); err == nil {
		_, werr := tmp.Write(b)
		cerr := tmp.Close()
		if werr == nil && cerr == nil && os.Rename(tmp.Name(), path) == nil {
			return nil
		}
		os.Remove(tmp.Name())
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("write termination message: %w", err)
	}
	return nil
}

// The API client is what the record, the reports and the keeper's pod
// watches take.
var (
	_ record.ConfigMapClient  = (*rest.Client)(nil)
	_ record.ConfigMapWatcher = (*rest.Client)(nil)
	_ report.PodClient        = (*rest.Client)(nil)
)
