package operate

import (
	"context"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
)

// Eviction is what Kueue's Events say of its evictions of a job for one
// reason (PodsReadyTimeout, Preempted...).
type Eviction struct {
	// reason Kueue gave.
	Reason string `json:"reason"`
	// count of such evictions.
	Count int32 `json:"count"`
	// last is when the last of them was.
	Last metav1.Time `json:"last"`
	// message of the last of them.
	Message string `json:"message,omitempty"`
}

// evictedEvent prefixes the reason of the Event Kueue records on a
// workload it evicts: EvictedDueTo<reason> (pkg/workload, v0.17 to v0.19).
const evictedEvent = "EvictedDueTo"

// evictions returns Kueue's evictions of job j, by reason, the latest
// first, from the Events Kueue recorded on the job's workloads. They
// outlive a workload: an eviction deletes every pod of the job, and when
// none is left the workload, whose owners they were, goes with them and
// Kueue makes a new one from the pods made again, with none of its
// predecessor's status. Events last as long as the API server keeps them
// (an hour by default); without the right to list them there are none.
func (c *Client) evictions(ctx context.Context, j *Job) []Eviction {
	if c.Kube == nil {
		return nil
	}
	sel := fields.Set{"involvedObject.kind": "Workload", "involvedObject.name": j.Name}.AsSelector().String()
	list, err := c.Kube.CoreV1().Events(j.Namespace).List(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		return nil
	}
	byReason := map[string]*Eviction{}
	for _, e := range list.Items {
		o := e.InvolvedObject
		reason, ok := strings.CutPrefix(e.Reason, evictedEvent)
		if !ok || o.Kind != "Workload" || o.Name != j.Name || !strings.HasPrefix(o.APIVersion, Workloads.Group+"/") {
			continue
		}
		ev := byReason[reason]
		if ev == nil {
			ev = &Eviction{Reason: reason}
			byReason[reason] = ev
		}
		ev.Count += max(e.Count, 1)
		if at := eventTime(&e); !at.Before(ev.Last.Time) {
			ev.Last, ev.Message = metav1.NewTime(at), e.Message
		}
	}
	out := make([]Eviction, 0, len(byReason))
	for _, ev := range byReason {
		out = append(out, *ev)
	}
	slices.SortFunc(out, func(a, b Eviction) int { return b.Last.Compare(a.Last.Time) })
	if len(out) == 0 {
		return nil
	}
	return out
}

// eventTime is when Event e was last seen: its series' last observation,
// its last timestamp or its event time, whichever it has.
func eventTime(e *corev1.Event) time.Time {
	switch {
	case e.Series != nil && !e.Series.LastObservedTime.IsZero():
		return e.Series.LastObservedTime.Time
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.CreationTimestamp.Time
}
