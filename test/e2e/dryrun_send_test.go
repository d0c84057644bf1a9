package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/tfgen/tfgen/test/harness"
)

// dryRunWorkers is how many creates are in flight at once: enough to
// keep the API server busy on two cores.
const dryRunWorkers = 8

// dryRunner creates objects in one namespace with server-side dry-run.
type dryRunner struct {
	client dynamic.Interface
	mapper meta.RESTMapper
	ns     string
}

func newDryRunner(cfg *rest.Config, ns string) (*dryRunner, error) {
	cfg.QPS, cfg.Burst = -1, 0 // no client-side rate limit
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &dryRunner{client: client, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)), ns: ns}, nil
}

// refusal is an object the API server refused.
type refusal struct {
	src  source
	obj  harness.Object
	err  error
	json string
}

func (r *refusal) Error() string {
	return fmt.Sprintf("the API server refused %s %s: %v\nIt came from %s\nThe object:\n%s", r.obj["kind"], name(r.obj), r.err, r.src, r.json)
}

// send creates every object of batches once (an object equal to one
// already sent is skipped), dryRunWorkers at a time, and returns how many
// it sent and the first refusal; with all, it goes on and returns every
// refusal.
func (d *dryRunner) send(ctx context.Context, batches []batch, all bool) (int, []*refusal, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type item struct {
		src source
		obj harness.Object
	}
	items := make(chan item)
	var (
		mu      sync.Mutex
		refused []*refusal
		wg      sync.WaitGroup
	)
	for range dryRunWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range items {
				if err := d.create(ctx, it.obj); err != nil && ctx.Err() == nil {
					b, _ := json.MarshalIndent(it.obj, "", "  ")
					mu.Lock()
					refused = append(refused, &refusal{src: it.src, obj: it.obj, err: err, json: string(b)})
					mu.Unlock()
					if !all {
						cancel()
					}
				}
			}
		}()
	}
	seen := map[string]bool{}
	sent := 0
feed:
	for _, b := range batches {
		for _, o := range b.objs {
			d.relocate(o)
			key := shape(o, b.src.jobName)
			if seen[key] {
				continue
			}
			seen[key] = true
			select {
			case items <- item{b.src, o}:
				sent++
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(items)
	wg.Wait()
	if len(refused) > 0 {
		return sent, refused, nil
	}
	return sent, nil, context.Cause(ctx)
}

// shape is o as JSON with the digits of its job's name (job-123,
// a000123) made zeros wherever the name appears: two generated jobs'
// objects that differ only there are checked alike by the API server (a
// name's length and characters are what it checks), so one of them is
// sent.
func shape(o harness.Object, job string) string {
	b, _ := json.Marshal(o)
	if job == "" {
		return string(b)
	}
	zeroed := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return '0'
		}
		return r
	}, job)
	return strings.ReplaceAll(string(b), job, zeroed)
}

// relocate puts o, and the subjects of a RoleBinding, in d's namespace.
func (d *dryRunner) relocate(o harness.Object) {
	if m, ok := o["metadata"].(harness.Object); ok {
		m["namespace"] = d.ns
	}
	subjects, _ := o["subjects"].([]any)
	for _, s := range subjects {
		if s, ok := s.(harness.Object); ok && s["namespace"] != nil {
			s["namespace"] = d.ns
		}
	}
}

// create creates o with dry-run: validated and admitted, never stored.
func (d *dryRunner) create(ctx context.Context, o harness.Object) error {
	u := &unstructured.Unstructured{Object: o}
	gvk := u.GroupVersionKind()
	m, err := d.mapper.RESTMapping(schema.GroupKind{Group: gvk.Group, Kind: gvk.Kind}, gvk.Version)
	if err != nil {
		return fmt.Errorf("no resource for %s: %w", gvk, err)
	}
	var r dynamic.ResourceInterface = d.client.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		r = d.client.Resource(m.Resource).Namespace(d.ns)
	}
	_, err = r.Create(ctx, u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
	return err
}

func name(o harness.Object) string {
	m, _ := o["metadata"].(harness.Object)
	n, _ := m["name"].(string)
	return strings.TrimSpace(n)
}
