package report

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/tfgen/tfgen/pkg/kube"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// ReportingController names tfsupervisor in the Events it emits.
const ReportingController = "tfgen.io/tfsupervisor"

// PodClient is what API needs from the API server; *rest.Client has it.
type PodClient interface {
	PatchPodMetadata(ctx context.Context, ns, name string, labels, annotations map[string]*string) (*kube.Pod, error)
	CreateEvent(ctx context.Context, ev *kube.Event) error
}

// API publishes reports on the replica's pod, in order, from a goroutine
// of its own, so that reporting never delays a restart. Flush waits for
// what is queued (final Events are delivered before the supervisor exits).
type API struct {
	client    PodClient
	namespace string
	pod       string
	labels    map[string]*string
	logf      func(string, ...any)

	mu        sync.Mutex
	queue     []supervise.Report
	queued    int           // reports queued so far
	delivered int           // reports handled so far
	changed   chan struct{} // closed and replaced when either moves
	uid       string        // the pod's UID, once known
	running   bool          // a deliver goroutine runs
	urgent    chan struct{} // a report that may not wait was queued, or a flush asked
	more      chan struct{} // a report that may wait was queued
}

var _ supervise.Reporter = (*API)(nil)

// NewAPI returns an API reporter for pod ns/name (UID uid, "" if not
// known: the first patch tells it) that also sets labels on the pod (the
// Kubeflow labels that need the ordinal).
func NewAPI(client PodClient, ns, pod, uid string, labels map[string]string, logf func(string, ...any)) *API {
	a := &API{client: client, namespace: ns, pod: pod, uid: uid, logf: logf, labels: map[string]*string{}, changed: make(chan struct{}),
		urgent: make(chan struct{}, 1), more: make(chan struct{}, 1)}
	for k, v := range labels {
		a.labels[k] = &v
	}
	return a
}

// Report implements supervise.Reporter.
func (a *API) Report(r supervise.Report) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.queue = append(a.queue, r)
	a.queued++
	if r.Spread <= 0 && r.Defer <= 0 {
		poke(a.urgent)
	} else {
		poke(a.more)
	}
	if !a.running {
		a.running = true
		go a.deliver()
	}
	a.notify()
}

func (a *API) notify() {
	close(a.changed)
	a.changed = make(chan struct{})
}

// poke signals ch, unless a signal is pending.
func poke(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// Flush implements supervise.Reporter: what is queued goes at once,
// whatever its leisure.
func (a *API) Flush(ctx context.Context) error {
	a.mu.Lock()
	target := a.queued
	if a.delivered < target {
		poke(a.urgent)
	}
	for a.delivered < target {
		ch := a.changed
		a.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		}
		a.mu.Lock()
	}
	a.mu.Unlock()
	return nil
}

// deliver drains the queue: one pod patch with the latest record of the
// batch (if any report of it has one), then the batch's Events in order.
// A batch of reports that may wait waits the least Defer and a random part
// of the least Spread of its reports (one queued meanwhile may shorten the
// wait), or until a report that may not is queued, or a flush.
func (a *API) deliver() {
	for {
		a.mu.Lock()
		batch := a.queue
		a.queue = nil
		if len(batch) == 0 {
			a.running = false
			a.mu.Unlock()
			return
		}
		a.mu.Unlock()
		if d, s := leisure(batch); d > 0 || s > 0 {
			batch = a.await(batch, time.Now().Add(d+rand.N(s+1)))
		}
		for i := len(batch) - 1; i >= 0; i-- {
			if batch[i].State != "" {
				a.patch(batch[i])
				break
			}
		}
		for _, r := range batch {
			for _, e := range r.Events {
				a.event(e)
			}
		}
		a.mu.Lock()
		a.delivered += len(batch)
		a.notify()
		a.mu.Unlock()
	}
}

// await waits until due, or sooner as reports queued meanwhile allow,
// and returns batch with them.
func (a *API) await(batch []supervise.Report, due time.Time) []supervise.Report {
	t := time.NewTimer(time.Until(due))
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-a.urgent: // it goes with this batch
		case <-a.more:
			a.mu.Lock()
			if len(a.queue) > 0 {
				d, s := leisure(a.queue)
				batch = append(batch, a.queue...)
				a.queue = nil
				if sooner := time.Now().Add(d + rand.N(s+1)); sooner.Before(due) {
					due = sooner
					t.Reset(time.Until(due))
				}
			}
			a.mu.Unlock()
			continue
		}
		a.mu.Lock()
		batch = append(batch, a.queue...)
		a.queue = nil
		a.mu.Unlock()
		return batch
	}
}

// leisure is how long the batch may wait: the least Defer and Spread of
// its reports.
func leisure(batch []supervise.Report) (deferred, spread time.Duration) {
	deferred, spread = batch[0].Defer, batch[0].Spread
	for _, r := range batch[1:] {
		deferred, spread = min(deferred, r.Defer), min(spread, r.Spread)
	}
	return deferred, spread
}

func (a *API) patch(r supervise.Report) {
	ann := map[string]*string{}
	for k, v := range r.Annotations() {
		ann[k] = &v
	}
	deliver(a.logf, "report state on pod "+a.pod, recordRetry, func(ctx context.Context) error {
		p, err := a.client.PatchPodMetadata(ctx, a.namespace, a.pod, a.labels, ann)
		if err == nil && p.UID != "" {
			a.mu.Lock()
			a.uid = p.UID
			a.mu.Unlock()
		}
		return err
	})
}

func (a *API) event(e supervise.Event) {
	now := time.Now()
	a.mu.Lock()
	uid := a.uid
	a.mu.Unlock()
	note := e.Note
	if len(note) > 1024 {
		note = note[:1021] + "..."
	}
	ev := &kube.Event{
		ObjectMeta:          kube.ObjectMeta{Name: a.pod + "." + strconv.FormatInt(now.UnixNano(), 16), Namespace: a.namespace},
		EventTime:           now.UTC().Format("2006-01-02T15:04:05.000000Z07:00"),
		ReportingController: ReportingController,
		ReportingInstance:   a.pod,
		Action:              e.Action,
		Reason:              e.Reason,
		Regarding:           kube.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: a.namespace, Name: a.pod, UID: uid},
		Note:                note,
		Type:                e.Type,
	}
	deliver(a.logf, "emit event "+e.Reason, eventRetry, func(ctx context.Context) error { return a.client.CreateEvent(ctx, ev) })
}

// recordRetry delivers a replica's record until it lands: the job's
// keeper decides from it. Each call gets 30 s: a busy API server finishes a
// PATCH it has begun, where a client that gives up sooner makes it do the
// work again (5 s gave 200 timed-out PATCHes at 500 replicas).
var recordRetry = kube.Retry{Initial: kube.DefaultRetry.Initial, Max: kube.DefaultRetry.Max, Timeout: 30 * time.Second}

// eventRetry tries an Event 4 times: Events are for humans, and a lost
// one changes nothing.
var eventRetry = kube.Retry{Initial: kube.DefaultRetry.Initial, Max: kube.DefaultRetry.Max, Timeout: 5 * time.Second, Attempts: 4}

// deliver makes call by policy p, logging the fourth failure and the
// last.
func deliver(logf func(string, ...any), what string, p kube.Retry, call func(context.Context) error) {
	err := p.Do(context.Background(), call, func(attempt int, err error, _ time.Duration) {
		if attempt == 4 {
			logf("%s: %v; trying again", what, err)
		}
	})
	if err != nil {
		logf("%s: %v", what, err)
	}
}
