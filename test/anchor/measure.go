package anchor

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// requests are the API server's request counts (apiserver_request_total)
// by verb, resource (with its subresource) and code.
type requests map[requestKey]float64

type requestKey struct{ verb, resource, code string }

// scrapeRequests reads the API server's request counters.
func scrapeRequests(ctx context.Context, cs kubernetes.Interface) (requests, error) {
	body, err := cs.Discovery().RESTClient().Get().AbsPath("/metrics").Stream(ctx)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	return parseRequests(body)
}

// parseRequests reads apiserver_request_total from Prometheus' text format.
func parseRequests(r io.Reader) (requests, error) {
	out := requests{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "apiserver_request_total{")
		if !ok {
			continue
		}
		labels, value, ok := strings.Cut(line, "} ")
		if !ok {
			return nil, fmt.Errorf("apiserver_request_total: no value in %q", sc.Text())
		}
		n, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			return nil, fmt.Errorf("apiserver_request_total: %w", err)
		}
		l := parseLabels(labels)
		resource := l["resource"]
		if sub := l["subresource"]; sub != "" {
			resource += "/" + sub
		}
		out[requestKey{l["verb"], resource, l["code"]}] += n
	}
	return out, sc.Err()
}

// parseLabels reads name="value",... (values without escaped quotes).
func parseLabels(s string) map[string]string {
	l := map[string]string{}
	for s != "" {
		name, rest, ok := strings.Cut(s, `="`)
		if !ok {
			break
		}
		value, rest, _ := strings.Cut(rest, `"`)
		l[name] = value
		s = strings.TrimPrefix(rest, ",")
	}
	return l
}

// since returns the counts made after earlier.
func (r requests) since(earlier requests) requests {
	out := requests{}
	for k, n := range r {
		if d := n - earlier[k]; d > 0 {
			out[k] = d
		}
	}
	return out
}

// count sums the requests that match.
func (r requests) count(match func(requestKey) bool) int {
	n := 0.0
	for k, v := range r {
		if match(k) {
			n += v
		}
	}
	return int(n)
}

func all(requestKey) bool { return true }

// isWrite says whether a request changes state.
func isWrite(k requestKey) bool {
	switch k.verb {
	case "POST", "PUT", "PATCH", "DELETE", "DELETECOLLECTION", "APPLY":
		return true
	}
	return false
}

func code(c string) func(requestKey) bool { return func(k requestKey) bool { return k.code == c } }

func is5xx(k requestKey) bool { return strings.HasPrefix(k.code, "5") }

// top lists the n largest counts, by verb and resource and code.
func (r requests) top(n int) string {
	keys := make([]requestKey, 0, len(r))
	for k := range r {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return r[keys[i]] > r[keys[j]] })
	var b strings.Builder
	for _, k := range keys[:min(n, len(keys))] {
		fmt.Fprintf(&b, "  %6.0f %s %s %s\n", r[k], k.verb, k.resource, k.code)
	}
	return b.String()
}

// pods follows a namespace's pods and says, at every change, whether a
// condition holds; it keeps when each pod held what it requests.
type pods struct {
	store   cache.Store
	mu      sync.Mutex
	changed chan struct{} // closed and replaced at every change
	ends    []time.Time   // when each pod was seen Succeeded or Failed
	held    map[types.UID]*podHold
}

func watchPods(ctx context.Context, cs kubernetes.Interface, ns string) (*pods, error) {
	p := &pods{changed: make(chan struct{}), held: map[types.UID]*podHold{}}
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	inf := factory.Core().V1().Pods().Informer()
	// seen notes a pod's state (nil: gone) and wakes the waiters.
	seen := func(uid types.UID, pod *corev1.Pod) {
		now := time.Now()
		p.mu.Lock()
		defer p.mu.Unlock()
		h := p.held[uid]
		if h == nil && pod != nil {
			h = &podHold{name: pod.Name, cpu: requestedCPU(&pod.Spec), made: now, gated: len(pod.Spec.SchedulingGates) > 0}
			p.held[uid] = h
		}
		if h != nil && pod != nil && pod.Spec.NodeName != "" && h.bound.IsZero() {
			h.bound = now
		}
		if h != nil {
			switch holding := pod != nil && holds(pod); {
			case holding && h.since.IsZero():
				h.since = now
			case !holding && !h.since.IsZero():
				h.spans = append(h.spans, span{h.since, now})
				h.since = time.Time{}
			}
		}
		close(p.changed)
		p.changed = make(chan struct{})
	}
	add := func(o any) {
		pod := o.(*corev1.Pod)
		seen(pod.UID, pod)
	}
	update := func(old, o any) {
		was, is := old.(*corev1.Pod), o.(*corev1.Pod)
		if !terminal(was) && terminal(is) {
			p.mu.Lock()
			p.ends = append(p.ends, time.Now())
			p.mu.Unlock()
		}
		seen(is.UID, is)
	}
	remove := func(o any) {
		if d, ok := o.(cache.DeletedFinalStateUnknown); ok {
			o = d.Obj
		}
		if pod, ok := o.(*corev1.Pod); ok {
			seen(pod.UID, nil)
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: add, UpdateFunc: update, DeleteFunc: remove}); err != nil {
		return nil, err
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return nil, fmt.Errorf("pod informer of %s did not sync", ns)
	}
	p.store = inf.GetStore()
	return p, nil
}

func terminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// endsAfter describes the ends after t: when the containers' processes
// ended (by the nodes' clocks: ends) and when the API server had each pod
// terminal, as the 10th, 50th and 90th percentiles and the last, from t.
func (p *pods) endsAfter(t time.Time, ends []time.Time) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var exited, seen []float64
	for _, e := range p.ends {
		if e.After(t) {
			seen = append(seen, e.Sub(t).Seconds())
		}
	}
	for _, e := range ends {
		if e.After(t) {
			exited = append(exited, e.Sub(t).Seconds())
		}
	}
	q := func(v []float64) string {
		if len(v) == 0 {
			return "none"
		}
		slices.Sort(v)
		at := func(f float64) float64 { return v[min(len(v)-1, int(f*float64(len(v))))] }
		return fmt.Sprintf("%.1f / %.1f / %.1f / %.1f s", at(0.1), at(0.5), at(0.9), v[len(v)-1])
	}
	return fmt.Sprintf("%d containers ended (10%%/50%%/90%%/last) %s; %d pods terminal in the API server %s", len(exited), q(exited), len(seen), q(seen))
}

// holding counts the pods that hold what they request (holds): bound to
// a node and not Succeeded or Failed.
func (p *pods) holding() int {
	n := 0
	for _, o := range p.store.List() {
		if holds(o.(*corev1.Pod)) {
			n++
		}
	}
	return n
}

// finishedHeld is what the pods of finished replicas held after their
// training ended (ends, by pod name), until now.
func (p *pods) finishedHeld(ends map[string]time.Time) held {
	p.mu.Lock()
	defer p.mu.Unlock()
	hs := make([]podHold, 0, len(p.held))
	for _, h := range p.held {
		hs = append(hs, *h)
	}
	return heldAfter(hs, ends, time.Now())
}

// made says how the pods came, from start (madeSummary).
func (p *pods) made(start time.Time) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	hs := make([]podHold, 0, len(p.held))
	for _, h := range p.held {
		hs = append(hs, *h)
	}
	return madeSummary(hs, start)
}

// left counts the pods that exist.
func (p *pods) left() int { return len(p.store.ListKeys()) }

// wait returns once cond holds, or ctx's error.
func (p *pods) wait(ctx context.Context, cond func() bool) error {
	for {
		p.mu.Lock()
		changed := p.changed
		p.mu.Unlock()
		if cond() {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
