package manifest

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Object is one Kubernetes object as plain data: maps with string keys,
// slices, strings, bools, nil, int64 for integers and float64 otherwise.
type Object map[string]any

// APIVersion returns the object's apiVersion ("" when missing).
func (o Object) APIVersion() string { return str(o["apiVersion"]) }

// Kind returns the object's kind ("" when missing).
func (o Object) Kind() string { return str(o["kind"]) }

// Name returns metadata.name ("" when missing).
func (o Object) Name() string { return str(o.metadata()["name"]) }

// Namespace returns metadata.namespace ("" when missing).
func (o Object) Namespace() string { return str(o.metadata()["namespace"]) }

// GroupVersionKind returns the object's group, version and kind.
func (o Object) GroupVersionKind() schema.GroupVersionKind {
	return schema.FromAPIVersionAndKind(o.APIVersion(), o.Kind())
}

// String names the object as kind/name, with its namespace when set.
func (o Object) String() string {
	s := o.Kind() + "/" + o.Name()
	if ns := o.Namespace(); ns != "" {
		s += " (namespace " + ns + ")"
	}
	return s
}

func (o Object) metadata() map[string]any {
	m, _ := o["metadata"].(map[string]any)
	return m
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// Normalize converts decoded JSON numbers into int64 (integers) or float64
// and returns v; maps and slices are converted in place.
func Normalize(v any) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			n, err := Normalize(e)
			if err != nil {
				return nil, err
			}
			t[k] = n
		}
	case []any:
		for i, e := range t {
			n, err := Normalize(e)
			if err != nil {
				return nil, err
			}
			t[i] = n
		}
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i, nil
		}
		f, err := t.Float64()
		if err != nil {
			return nil, fmt.Errorf("number %v: %w", t, err)
		}
		return f, nil
	}
	return v, nil
}
