package harness

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// DryRunner creates objects in one namespace with server-side dry-run:
// validated (strict field validation), defaulted and admitted as a create
// is, never stored. It is safe for concurrent use.
type DryRunner struct {
	client dynamic.Interface
	mapper meta.RESTMapper
	ns     string
}

// NewDryRunner returns a DryRunner for the API server of cfg (its
// client-side rate limit turned off) creating in namespace ns. The
// kinds it knows are the server's when it is first used.
func NewDryRunner(cfg *rest.Config, ns string) (*DryRunner, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = -1, 0
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &DryRunner{client: client, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)), ns: ns}, nil
}

// Relocate puts o, and the subjects of a RoleBinding, in d's namespace.
func (d *DryRunner) Relocate(o Object) {
	if m, ok := o["metadata"].(Object); ok {
		m["namespace"] = d.ns
	}
	subjects, _ := o["subjects"].([]any)
	for _, s := range subjects {
		if s, ok := s.(Object); ok && s["namespace"] != nil {
			s["namespace"] = d.ns
		}
	}
}

// Create creates o with dry-run and returns the object the server
// answered with: o as it would be stored. Compare it with o with Unkept.
func (d *DryRunner) Create(ctx context.Context, o Object) (Object, error) {
	u := &unstructured.Unstructured{Object: o}
	gvk := u.GroupVersionKind()
	m, err := d.mapper.RESTMapping(schema.GroupKind{Group: gvk.Group, Kind: gvk.Kind}, gvk.Version)
	if err != nil {
		return nil, fmt.Errorf("no resource for %s: %w", gvk, err)
	}
	var r dynamic.ResourceInterface = d.client.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		r = d.client.Resource(m.Resource).Namespace(d.ns)
	}
	got, err := r.Create(ctx, u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
	if err != nil {
		return nil, err
	}
	return got.Object, nil
}

// Describe is "Kind name" of o, for messages.
func Describe(o Object) string {
	m, _ := o["metadata"].(Object)
	n, _ := m["name"].(string)
	return fmt.Sprintf("%v %s", o["kind"], strings.TrimSpace(n))
}
