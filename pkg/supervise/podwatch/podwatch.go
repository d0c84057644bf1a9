// Package podwatch is the job's keeper's view of its replicas in a
// cluster: one list and watch of the job's pods (label
// training.kubeflow.org/job-name), each pod's replica record read from the
// annotations its supervisor keeps there, and a replica's first start,
// which its supervisor leaves unwritten for a while, from its pod's phase.
package podwatch

import (
	"context"
	"strings"
	"sync"

	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/kube"
	"github.com/tfgen/tfgen/pkg/kube/rest"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// Labels that name a pod's job and replica type.
const (
	LabelJobName     = "training.kubeflow.org/job-name"
	LabelReplicaType = "training.kubeflow.org/replica-type"
)

// Client watches pods; *rest.Client has it.
type Client interface {
	WatchPods(ctx context.Context, ns, labelSelector string, logf func(string, ...any)) <-chan kube.PodEvent
}

var _ Client = (*rest.Client)(nil)

// Feed follows the pods of one job; it implements supervise.ReplicaFeed.
type Feed struct {
	job     string
	mu      sync.Mutex
	pods    map[string]supervise.Observed // by pod name
	changed chan struct{}
	synced  bool // the pods have been listed
	gone    []supervise.Observed
}

var _ supervise.ReplicaFeed = (*Feed)(nil)

// Start follows the pods of job in ns until ctx ends. Its first change
// comes once the pods have been listed.
func Start(ctx context.Context, c Client, ns, job string, logf func(string, ...any)) *Feed {
	f := &Feed{job: job, pods: map[string]supervise.Observed{}, changed: make(chan struct{}, 1)}
	events := c.WatchPods(ctx, ns, LabelJobName+"="+job, logf)
	go func() {
		for ev := range events {
			f.apply(ev)
			select {
			case f.changed <- struct{}{}:
			default:
			}
		}
	}()
	return f
}

func (f *Feed) apply(ev kube.PodEvent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch ev.Type {
	case kube.Synced:
		f.synced = true
		clear(f.pods)
		for _, p := range ev.Pods {
			f.set(p)
		}
	case kube.Deleted:
		delete(f.pods, ev.Pod.Name)
		if ref, ok := replicaOf(f.job, ev.Pod); ok {
			rec, _ := record.ReplicaFromAnnotations(ev.Pod.Annotations)
			f.gone = append(f.gone, supervise.Observed{Ref: ref, Pod: ev.Pod.UID, Replica: rec})
		}
	default:
		f.set(ev.Pod)
	}
}

// set keeps pod p as a replica, if it is one of the job's.
func (f *Feed) set(p *kube.Pod) {
	ref, ok := replicaOf(f.job, p)
	if !ok {
		return
	}
	rec, _ := record.ReplicaFromAnnotations(p.Annotations)
	rec = rec.OnPod(p.Status.Phase == "Running" && p.DeletionTimestamp == "")
	f.pods[p.Name] = supervise.Observed{Ref: ref, Pod: p.UID, Replica: rec, Gated: p.Gated(supervise.FinishedGate)}
}

// replicaOf names the replica pod p runs: its type from the replica-type
// label (else from its name J-t-i), its index from its name's suffix.
func replicaOf(job string, p *kube.Pod) (supervise.Ref, bool) {
	i, err := cluster.Ordinal(p.Name)
	if err != nil {
		return supervise.Ref{}, false
	}
	t := p.Labels[LabelReplicaType]
	if t == "" {
		rest, ok := strings.CutPrefix(p.Name, job+"-")
		k := strings.LastIndexByte(rest, '-')
		if !ok || k <= 0 {
			return supervise.Ref{}, false
		}
		t = rest[:k]
	}
	return supervise.Ref{Type: strings.ToLower(t), Index: i}, true
}

// Changed implements supervise.ReplicaFeed.
func (f *Feed) Changed() <-chan struct{} { return f.changed }

// Departed implements supervise.ReplicaFeed: the deleted pods' last
// records, as their deletions carried them.
func (f *Feed) Departed() []supervise.Observed {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.gone
	f.gone = nil
	return out
}

// Replicas implements supervise.ReplicaFeed.
func (f *Feed) Replicas() []supervise.Observed {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]supervise.Observed, 0, len(f.pods))
	for _, o := range f.pods {
		out = append(out, o)
	}
	return out
}
