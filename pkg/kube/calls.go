package kube

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// GetConfigMap reads ConfigMap ns/name.
func (c *Client) GetConfigMap(ctx context.Context, ns, name string) (*ConfigMap, error) {
	cm := &ConfigMap{}
	b, err := c.rc.Get().AbsPath(corePath(ns, "configmaps", name)...).DoRaw(ctx)
	return cm, decode(b, err, cm, "get configmap "+ns+"/"+name)
}

// UpdateConfigMap writes cm back (PUT). The write fails with a Conflict
// when cm.ResourceVersion is no longer current.
func (c *Client) UpdateConfigMap(ctx context.Context, cm *ConfigMap) (*ConfigMap, error) {
	what := "update configmap " + cm.Namespace + "/" + cm.Name
	body, err := json.Marshal(cm)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	out := &ConfigMap{}
	b, err := c.rc.Put().AbsPath(corePath(cm.Namespace, "configmaps", cm.Name)...).
		SetHeader("Content-Type", runtime.ContentTypeJSON).Body(body).DoRaw(ctx)
	return out, decode(b, err, out, what)
}

// GetPod reads pod ns/name.
func (c *Client) GetPod(ctx context.Context, ns, name string) (*Pod, error) {
	p := &Pod{}
	b, err := c.rc.Get().AbsPath(corePath(ns, "pods", name)...).DoRaw(ctx)
	return p, decode(b, err, p, "get pod "+ns+"/"+name)
}

// PatchPodMetadata merges labels and annotations into pod ns/name's
// metadata (a JSON merge patch; a nil value removes a key).
func (c *Client) PatchPodMetadata(ctx context.Context, ns, name string, labels, annotations map[string]*string) (*Pod, error) {
	what := "patch pod " + ns + "/" + name
	meta := map[string]any{}
	if len(labels) > 0 {
		meta["labels"] = labels
	}
	if len(annotations) > 0 {
		meta["annotations"] = annotations
	}
	body, err := json.Marshal(map[string]any{"metadata": meta})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	p := &Pod{}
	b, err := c.rc.Patch(types.MergePatchType).AbsPath(corePath(ns, "pods", name)...).Body(body).DoRaw(ctx)
	return p, decode(b, err, p, what)
}

// ScaleStatefulSet sets the replicas of StatefulSet ns/name through its
// scale subresource.
func (c *Client) ScaleStatefulSet(ctx context.Context, ns, name string, replicas int32) error {
	body := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, replicas)
	b, err := c.rc.Patch(types.MergePatchType).AbsPath(groupPath("apps/v1", ns, "statefulsets", name, "scale")...).Body(body).DoRaw(ctx)
	return decode(b, err, nil, "scale statefulset "+ns+"/"+name)
}

// CreateEvent creates an events.k8s.io/v1 Event in its namespace.
func (c *Client) CreateEvent(ctx context.Context, ev *Event) error {
	what := "create event " + ev.Reason
	ev.APIVersion, ev.Kind = "events.k8s.io/v1", "Event"
	body, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	b, err := c.rc.Post().AbsPath(groupPath("events.k8s.io/v1", ev.Namespace, "events")...).
		SetHeader("Content-Type", runtime.ContentTypeJSON).Body(body).DoRaw(ctx)
	return decode(b, err, nil, what)
}
