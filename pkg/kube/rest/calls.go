package rest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/tfgen/tfgen/pkg/kube"
)

func corePath(ns, resource string, name ...string) string {
	p := "/api/v1/namespaces/" + url.PathEscape(ns) + "/" + resource
	for _, n := range name {
		p += "/" + url.PathEscape(n)
	}
	return p
}

func groupPath(gv, ns, resource string, name ...string) string {
	p := "/apis/" + gv + "/namespaces/" + url.PathEscape(ns) + "/" + resource
	for _, n := range name {
		p += "/" + url.PathEscape(n)
	}
	return p
}

// GetConfigMap reads ConfigMap ns/name.
func (c *Client) GetConfigMap(ctx context.Context, ns, name string) (*kube.ConfigMap, error) {
	cm := &kube.ConfigMap{}
	return cm, c.do(ctx, "get configmap "+ns+"/"+name, http.MethodGet, corePath(ns, "configmaps", name), "", nil, cm)
}

// UpdateConfigMap writes cm back (PUT). The write fails with a Conflict
// when cm.ResourceVersion is no longer current.
func (c *Client) UpdateConfigMap(ctx context.Context, cm *kube.ConfigMap) (*kube.ConfigMap, error) {
	what := "update configmap " + cm.Namespace + "/" + cm.Name
	body, err := json.Marshal(cm)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	out := &kube.ConfigMap{}
	return out, c.do(ctx, what, http.MethodPut, corePath(cm.Namespace, "configmaps", cm.Name), ContentJSON, body, out)
}

// ServerVersion reads the API server's version (its gitVersion,
// v1.34.4): every account may read it.
func (c *Client) ServerVersion(ctx context.Context) (string, error) {
	var v struct {
		GitVersion string `json:"gitVersion"`
	}
	err := c.do(ctx, "get the server's version", http.MethodGet, "/version", "", nil, &v)
	return v.GitVersion, err
}

// GetPod reads pod ns/name.
func (c *Client) GetPod(ctx context.Context, ns, name string) (*kube.Pod, error) {
	p := &kube.Pod{}
	return p, c.do(ctx, "get pod "+ns+"/"+name, http.MethodGet, corePath(ns, "pods", name), "", nil, p)
}

// PatchPodMetadata merges labels and annotations into pod ns/name's
// metadata (a strategic merge patch; a nil value removes a key).
func (c *Client) PatchPodMetadata(ctx context.Context, ns, name string, labels, annotations map[string]*string) (*kube.Pod, error) {
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
	p := &kube.Pod{}
	return p, c.do(ctx, what, http.MethodPatch, corePath(ns, "pods", name), ContentStrategicMergePatch, body, p)
}

// CreateEndpointSlice creates slice in its namespace.
func (c *Client) CreateEndpointSlice(ctx context.Context, slice *kube.EndpointSlice) error {
	what := "create endpointslice " + slice.Metadata.Namespace + "/" + slice.Metadata.Name
	slice.APIVersion, slice.Kind = "discovery.k8s.io/v1", "EndpointSlice"
	body, err := json.Marshal(slice)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return c.do(ctx, what, http.MethodPost, groupPath("discovery.k8s.io/v1", slice.Metadata.Namespace, "endpointslices"), ContentJSON, body, nil)
}

// ScaleStatefulSet sets the replicas of StatefulSet ns/name through its
// scale subresource.
func (c *Client) ScaleStatefulSet(ctx context.Context, ns, name string, replicas int32) error {
	body := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, replicas)
	return c.do(ctx, "scale statefulset "+ns+"/"+name, http.MethodPatch, groupPath("apps/v1", ns, "statefulsets", name, "scale"), ContentMergePatch, body, nil)
}

// StatefulSetReplicas returns the replicas StatefulSet ns/name is set to,
// read through its scale subresource.
func (c *Client) StatefulSetReplicas(ctx context.Context, ns, name string) (int32, error) {
	var scale struct {
		Spec struct {
			Replicas int32 `json:"replicas"`
		} `json:"spec"`
	}
	err := c.do(ctx, "get statefulset scale "+ns+"/"+name, http.MethodGet, groupPath("apps/v1", ns, "statefulsets", name, "scale"), "", nil, &scale)
	return scale.Spec.Replicas, err
}

// GateStatefulSet adds the scheduling gate gate to the pod template of
// StatefulSet ns/name (a strategic merge patch, which keeps the template's
// other gates and adds none twice) and returns its generation after the
// patch.
func (c *Client) GateStatefulSet(ctx context.Context, ns, name, gate string) (int64, error) {
	body, err := json.Marshal(map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
		"schedulingGates": []map[string]string{{"name": gate}}}}}})
	if err != nil {
		return 0, err
	}
	var sts statefulSetGenerations
	err = c.do(ctx, "gate statefulset "+ns+"/"+name, http.MethodPatch, groupPath("apps/v1", ns, "statefulsets", name), ContentStrategicMergePatch, body, &sts)
	return sts.Metadata.Generation, err
}

// StatefulSetObserved returns the generation of StatefulSet ns/name that
// its controller has seen (status.observedGeneration).
func (c *Client) StatefulSetObserved(ctx context.Context, ns, name string) (int64, error) {
	var sts statefulSetGenerations
	err := c.do(ctx, "get statefulset "+ns+"/"+name, http.MethodGet, groupPath("apps/v1", ns, "statefulsets", name), "", nil, &sts)
	return sts.Status.ObservedGeneration, err
}

// statefulSetGenerations is the part of a StatefulSet the gate's calls
// read.
type statefulSetGenerations struct {
	Metadata struct {
		Generation int64 `json:"generation"`
	} `json:"metadata"`
	Status struct {
		ObservedGeneration int64 `json:"observedGeneration"`
	} `json:"status"`
}

// LiftPodGate removes the scheduling gate gate from pod ns/name, if that
// pod still has UID uid (a precondition: a pod made again under the same
// name is not touched).
func (c *Client) LiftPodGate(ctx context.Context, ns, name, uid, gate string) error {
	body, err := json.Marshal(map[string]any{"metadata": map[string]string{"uid": uid},
		"spec": map[string]any{"schedulingGates": []map[string]string{{"$patch": "delete", "name": gate}}}})
	if err != nil {
		return err
	}
	return c.do(ctx, "lift the gate of pod "+ns+"/"+name, http.MethodPatch, corePath(ns, "pods", name), ContentStrategicMergePatch, body, nil)
}

// CreateEvent creates an events.k8s.io/v1 Event in its namespace.
func (c *Client) CreateEvent(ctx context.Context, ev *kube.Event) error {
	what := "create event " + ev.Reason
	ev.APIVersion, ev.Kind = "events.k8s.io/v1", "Event"
	body, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return c.do(ctx, what, http.MethodPost, groupPath("events.k8s.io/v1", ev.Namespace, "events"), ContentJSON, body, nil)
}
