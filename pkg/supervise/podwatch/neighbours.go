package podwatch

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/tfgen/tfgen/pkg/kube"
	"github.com/tfgen/tfgen/pkg/kube/rest"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// Labels and annotations of an elastic job's pods (the templates set
// them).
const (
	LabelElastic             = "tfgen.io/elastic"
	AnnotationElasticMinimum = "tfgen.io/elastic-min-workers"
)

// PodsClient watches pods whole; *rest.Client has it.
type PodsClient interface {
	WatchPods(ctx context.Context, ns, labelSelector string, logf func(string, ...any)) <-chan kube.PodEvent
}

var _ PodsClient = (*rest.Client)(nil)

// Neighbours follows the pods of the elastic jobs of a namespace (label
// tfgen.io/elastic=dragon); it implements supervise.Neighbourhood.
type Neighbours struct {
	mu       sync.Mutex
	pods     map[string]supervise.ElasticPod // by pod name
	activity time.Time
	changed  chan struct{}
	now      func() time.Time
}

var _ supervise.Neighbourhood = (*Neighbours)(nil)

// StartNeighbours follows the elastic pods of ns until ctx ends. Pods
// that came or went before it started are taken to have just now: a
// keeper that restarts does not know when the last one did.
func StartNeighbours(ctx context.Context, c PodsClient, ns string, logf func(string, ...any)) *Neighbours {
	n := &Neighbours{pods: map[string]supervise.ElasticPod{}, changed: make(chan struct{}, 1), now: time.Now}
	n.activity = n.now()
	events := c.WatchPods(ctx, ns, LabelElastic+"=dragon", logf)
	go func() {
		for ev := range events {
			n.apply(ev)
			select {
			case n.changed <- struct{}{}:
			default:
			}
		}
	}()
	return n
}

func (n *Neighbours) apply(ev kube.PodEvent) {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch ev.Type {
	case kube.Synced:
		clear(n.pods)
		for _, p := range ev.Pods {
			n.set(p)
		}
	case kube.Deleted:
		delete(n.pods, ev.Pod.Name)
		n.activity = n.now()
	default:
		if _, ok := n.pods[ev.Pod.Name]; !ok || ev.Pod.DeletionTimestamp != "" {
			n.activity = n.now() // came, or goes
		}
		n.set(ev.Pod)
	}
}

// set keeps pod p, if it is a replica of an elastic job.
func (n *Neighbours) set(p *kube.Pod) {
	job := p.Labels[LabelJobName]
	ref, ok := replicaOf(job, p)
	if !ok || job == "" {
		return
	}
	lo, _ := strconv.Atoi(p.Annotations[AnnotationElasticMinimum])
	e := supervise.ElasticPod{Job: job, Ref: ref, Min: int32(lo), Scheduled: p.Spec.NodeName != "", Deleting: p.DeletionTimestamp != "",
		Since: parseTime(p.CreationTimestamp)}
	for _, c := range p.Status.Conditions {
		if c.Type == "PodScheduled" && c.Status == "False" {
			e.Since = later(e.Since, parseTime(c.LastTransitionTime))
		}
	}
	n.pods[p.Name] = e
}

// Changed implements supervise.Neighbourhood.
func (n *Neighbours) Changed() <-chan struct{} { return n.changed }

// Pods implements supervise.Neighbourhood.
func (n *Neighbours) Pods() []supervise.ElasticPod {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]supervise.ElasticPod, 0, len(n.pods))
	for _, p := range n.pods {
		out = append(out, p)
	}
	return out
}

// Activity implements supervise.Neighbourhood.
func (n *Neighbours) Activity() time.Time {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.activity
}

func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339, s)
	return t
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
