package anchor

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// sets follows a namespace's StatefulSets (tfgen's), noting when each
// one's spec changed after its creation (tfgen's keeper gating its pod
// template, or scaling it) and when its controller saw the change
// (status.observedGeneration): the keeper records a type gated only then.
type sets struct {
	mu      sync.Mutex
	changes map[string][]setChange // by StatefulSet
}

// setChange is one generation of a StatefulSet: when it was seen, and
// when its controller was seen to have observed it (zero: not yet).
type setChange struct {
	generation     int64
	gated          bool // its pod template has a scheduling gate
	replicas       int32
	made, observed time.Time
}

func watchSets(ctx context.Context, cs kubernetes.Interface, ns string) (*sets, error) {
	s := &sets{changes: map[string][]setChange{}}
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	inf := factory.Apps().V1().StatefulSets().Informer()
	seen := func(o any) {
		if set, ok := o.(*appsv1.StatefulSet); ok {
			s.seen(set, time.Now())
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: seen, UpdateFunc: func(_, o any) { seen(o) }}); err != nil {
		return nil, err
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return nil, fmt.Errorf("StatefulSet informer of %s did not sync", ns)
	}
	return s, nil
}

// seen notes StatefulSet set as seen at now.
func (s *sets) seen(set *appsv1.StatefulSet, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := s.changes[set.Name]
	if len(cs) == 0 || cs[len(cs)-1].generation < set.Generation {
		replicas := int32(1)
		if set.Spec.Replicas != nil {
			replicas = *set.Spec.Replicas
		}
		cs = append(cs, setChange{generation: set.Generation, gated: len(set.Spec.Template.Spec.SchedulingGates) > 0, replicas: replicas, made: now})
	}
	for i := range cs {
		if cs[i].observed.IsZero() && set.Status.ObservedGeneration >= cs[i].generation {
			cs[i].observed = now
		}
	}
	s.changes[set.Name] = cs
}

// summary says, from start, when each StatefulSet's spec changed after its
// creation and when its controller saw each change.
func (s *sets) summary(start time.Time) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	secs := func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return fmt.Sprintf("%.1f s", t.Sub(start).Seconds())
	}
	var lines []string
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range s.changes {
			if !yield(n) {
				return
			}
		}
	}) {
		cs := s.changes[name]
		var b strings.Builder
		fmt.Fprintf(&b, "%s: made at %s", name, secs(cs[0].made))
		for i, c := range cs[1:] {
			what := fmt.Sprintf("to %d replicas", c.replicas)
			if c.gated && !cs[i].gated {
				what = "gated"
			}
			fmt.Fprintf(&b, "; %s at %s, seen by its controller at %s", what, secs(c.made), secs(c.observed))
		}
		lines = append(lines, b.String())
	}
	return strings.Join(lines, "\n")
}
