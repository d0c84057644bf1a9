package kube

import (
	"encoding/json"
	"errors"
)

// ObjectMeta is the part of an object's metadata the supervisor uses.
type ObjectMeta struct {
	Name            string            `json:"name,omitempty"`
	Namespace       string            `json:"namespace,omitempty"`
	UID             string            `json:"uid,omitempty"`
	ResourceVersion string            `json:"resourceVersion,omitempty"`
	Labels          map[string]string `json:"labels,omitempty"`
	Annotations     map[string]string `json:"annotations,omitempty"`
	// CreationTimestamp is when the object was made (RFC 3339).
	CreationTimestamp string `json:"creationTimestamp,omitempty"`
	// DeletionTimestamp is set once the object is being deleted.
	DeletionTimestamp string `json:"deletionTimestamp,omitempty"`
}

// ConfigMap is a core/v1 ConfigMap. It keeps the object as read, so that
// an update writes back every field (owner references, managed fields...)
// with only data and the resourceVersion set from this struct.
type ConfigMap struct {
	// ObjectMeta as read.
	ObjectMeta
	// Data, as in core/v1.
	Data map[string]string

	raw map[string]json.RawMessage
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *ConfigMap) UnmarshalJSON(b []byte) error {
	var v struct {
		Metadata ObjectMeta        `json:"metadata"`
		Data     map[string]string `json:"data"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	c.ObjectMeta, c.Data, c.raw = v.Metadata, v.Data, nil
	return json.Unmarshal(b, &c.raw)
}

// MarshalJSON implements json.Marshaler: the object as read, with data
// and metadata.resourceVersion (and, for a new object, name and namespace)
// from c.
func (c ConfigMap) MarshalJSON() ([]byte, error) {
	out := map[string]json.RawMessage{}
	for k, v := range c.raw {
		out[k] = v
	}
	meta := map[string]json.RawMessage{}
	if m, ok := c.raw["metadata"]; ok {
		if err := json.Unmarshal(m, &meta); err != nil {
			return nil, err
		}
	}
	set := func(m map[string]json.RawMessage, k string, v any) error {
		b, err := json.Marshal(v)
		m[k] = b
		return err
	}
	errs := []error{set(out, "apiVersion", "v1"), set(out, "kind", "ConfigMap"), set(meta, "name", c.Name),
		set(meta, "namespace", c.Namespace), set(meta, "resourceVersion", c.ResourceVersion), set(out, "data", c.Data)}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := set(out, "metadata", meta); err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

// Pod is the part of a core/v1 Pod the supervisor reads: metadata and the
// containers' statuses. It is never written back whole.
type Pod struct {
	ObjectMeta `json:"metadata"`
	// spec: where the pod was scheduled.
	Spec PodSpec `json:"spec"`
	// status, as the kubelet reports it.
	Status PodStatus `json:"status"`
}

// PodSpec is the part of core/v1 PodSpec the supervisor reads.
type PodSpec struct {
	// nodeName the pod is bound to, once scheduled.
	NodeName string `json:"nodeName,omitempty"`
	// volumes of the pod, by name: an API server drops a volume of a
	// kind it does not serve (an image volume before Kubernetes 1.35).
	Volumes []Volume `json:"volumes,omitempty"`
	// containers: the regular containers' restart policies, which an API
	// server without container restart rules (before 1.35) drops.
	Containers []Container `json:"containers,omitempty"`
	// schedulingGates keep the pod from being scheduled while any is set.
	SchedulingGates []SchedulingGate `json:"schedulingGates,omitempty"`
}

// SchedulingGate is a core/v1 PodSchedulingGate.
type SchedulingGate struct {
	Name string `json:"name"`
}

// Gated reports whether p carries the scheduling gate name.
func (p *Pod) Gated(name string) bool {
	for _, g := range p.Spec.SchedulingGates {
		if g.Name == name {
			return true
		}
	}
	return false
}

// Volume is the part of a core/v1 Volume the supervisor reads.
type Volume struct {
	Name string `json:"name"`
}

// Container is the part of a core/v1 Container the supervisor reads.
type Container struct {
	Name string `json:"name"`
	// restartPolicy of the container itself (Never, Always, OnFailure):
	// with restartPolicyRules, it overrides the pod's.
	RestartPolicy string `json:"restartPolicy,omitempty"`
}

// PodStatus is the part of core/v1 PodStatus the supervisor reads.
type PodStatus struct {
	// phase of the pod.
	Phase string `json:"phase,omitempty"`
	// reason the pod is in its phase (Evicted).
	Reason string `json:"reason,omitempty"`
	// conditions of the pod (DisruptionTarget).
	Conditions []PodCondition `json:"conditions,omitempty"`
	// containerStatuses of the regular containers.
	ContainerStatuses []ContainerStatus `json:"containerStatuses,omitempty"`
}

// PodCondition is the part of a core/v1 PodCondition the supervisor reads.
type PodCondition struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	Reason             string `json:"reason,omitempty"`
	LastTransitionTime string `json:"lastTransitionTime,omitempty"`
}

// Disruption says why pod p is going away from outside, "" when it is
// not: it is being deleted (which preemption and node loss also do), or
// its DisruptionTarget condition or its Evicted phase reason says it was
// evicted or preempted.
func (p *Pod) Disruption() string {
	for _, c := range p.Status.Conditions {
		if c.Type == "DisruptionTarget" && c.Status == "True" {
			return "DisruptionTarget: " + c.Reason
		}
	}
	switch {
	case p.Status.Reason == "Evicted":
		return "Evicted"
	case p.DeletionTimestamp != "":
		return "deleted"
	}
	return ""
}

// ContainerStatus is core/v1 ContainerStatus.
type ContainerStatus struct {
	// name of the container.
	Name string `json:"name"`
	// state now.
	State ContainerState `json:"state,omitempty"`
	// lastState is the previous container's termination, after a restart.
	LastState ContainerState `json:"lastState,omitempty"`
	// restartCount counts the kubelet's restarts of this container.
	RestartCount int32 `json:"restartCount"`
	// containerID of the current container.
	ContainerID string `json:"containerID,omitempty"`
}

// ContainerState is core/v1 ContainerState; at most one member is set.
type ContainerState struct {
	// waiting, e.g. in restart backoff.
	Waiting *ContainerStateWaiting `json:"waiting,omitempty"`
	// running since startedAt.
	Running *ContainerStateRunning `json:"running,omitempty"`
	// terminated with an exit code.
	Terminated *ContainerStateTerminated `json:"terminated,omitempty"`
}

// ContainerStateWaiting is core/v1 ContainerStateWaiting.
type ContainerStateWaiting struct {
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// ContainerStateRunning is core/v1 ContainerStateRunning.
type ContainerStateRunning struct {
	StartedAt string `json:"startedAt,omitempty"`
}

// ContainerStateTerminated is core/v1 ContainerStateTerminated.
type ContainerStateTerminated struct {
	ExitCode    int32  `json:"exitCode"`
	Signal      int32  `json:"signal,omitempty"`
	Reason      string `json:"reason,omitempty"`
	Message     string `json:"message,omitempty"`
	StartedAt   string `json:"startedAt,omitempty"`
	FinishedAt  string `json:"finishedAt,omitempty"`
	ContainerID string `json:"containerID,omitempty"`
}

// Event is an events.k8s.io/v1 Event.
type Event struct {
	// APIVersion and Kind: events.k8s.io/v1, Event.
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Metadata of the event: name and namespace.
	ObjectMeta `json:"metadata"`
	// eventTime is when the event happened (required), with microseconds.
	EventTime string `json:"eventTime"`
	// reportingController: tfgen.io/tfsupervisor.
	ReportingController string `json:"reportingController"`
	// reportingInstance: the reporting pod's name.
	ReportingInstance string `json:"reportingInstance"`
	// action taken, e.g. Restart, Teardown.
	Action string `json:"action"`
	// reason in UpperCamelCase, at most 128 characters.
	Reason string `json:"reason"`
	// regarding is the object the event is about (the pod).
	Regarding ObjectReference `json:"regarding"`
	// note for humans, at most 1 kB.
	Note string `json:"note,omitempty"`
	// type: Normal or Warning.
	Type string `json:"type"`
}

// ObjectReference is core/v1 ObjectReference.
type ObjectReference struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name,omitempty"`
	UID        string `json:"uid,omitempty"`
}

// PodEvent is one change of the pods a watch of pods (rest.Client.WatchPods) follows.
type PodEvent struct {
	// Type is Added, Modified, Deleted, or Synced after each (re)list.
	Type string
	// Pod added, modified or deleted (metadata only).
	Pod *Pod
	// Pods, with Synced: every pod of the list, replacing what came before.
	Pods []*Pod
}

// Watch event types.
const (
	Added    = "ADDED"
	Modified = "MODIFIED"
	Deleted  = "DELETED"
	// Synced is no API event: it carries every object of a fresh list.
	Synced = "SYNCED"
)

// Meta returns m: objects that embed an ObjectMeta have it as a method.
func (m *ObjectMeta) Meta() *ObjectMeta { return m }

// EndpointSlice is a discovery.k8s.io/v1 EndpointSlice: the one a replica
// publishes for its own pod (package address).
type EndpointSlice struct {
	// APIVersion and Kind: discovery.k8s.io/v1, EndpointSlice.
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Metadata: name, namespace, labels (kubernetes.io/service-name names
	// the Service) and the pod as owner.
	Metadata SliceMeta `json:"metadata"`
	// AddressType is IPv4 or IPv6.
	AddressType string `json:"addressType"`
	// Endpoints: the pod.
	Endpoints []Endpoint `json:"endpoints"`
	// Ports the Service names.
	Ports []EndpointPort `json:"ports"`
}

// SliceMeta is an EndpointSlice's metadata: an ObjectMeta with owners.
type SliceMeta struct {
	ObjectMeta
	// OwnerReferences: the pod, so that the slice goes with it.
	OwnerReferences []OwnerReference `json:"ownerReferences,omitempty"`
}

// OwnerReference is a meta/v1 OwnerReference.
type OwnerReference struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	UID        string `json:"uid"`
}

// Endpoint is a discovery/v1 Endpoint.
type Endpoint struct {
	// Addresses of the endpoint, of the slice's address type.
	Addresses []string `json:"addresses"`
	// Hostname is the name cluster DNS gives the addresses under the
	// Service (the pod's hostname).
	Hostname string `json:"hostname,omitempty"`
	// Conditions: ready, which cluster DNS requires.
	Conditions EndpointConditions `json:"conditions"`
	// TargetRef is the pod.
	TargetRef *ObjectReference `json:"targetRef,omitempty"`
	// NodeName is the node the pod runs on, when known.
	NodeName string `json:"nodeName,omitempty"`
}

// EndpointConditions is a discovery/v1 EndpointConditions.
type EndpointConditions struct {
	Ready *bool `json:"ready,omitempty"`
}

// EndpointPort is a discovery/v1 EndpointPort.
type EndpointPort struct {
	Name     string `json:"name"`
	Port     int32  `json:"port"`
	Protocol string `json:"protocol"`
}
