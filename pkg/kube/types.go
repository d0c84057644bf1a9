package kube

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// ConfigMap is a core/v1 ConfigMap; it round-trips every field, so an
// update writes back exactly what was read plus the caller's changes.
type ConfigMap struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	// immutable, as in core/v1.
	Immutable *bool `json:"immutable,omitempty"`
	// data, as in core/v1.
	Data map[string]string `json:"data,omitempty"`
	// binaryData, as in core/v1.
	BinaryData map[string][]byte `json:"binaryData,omitempty"`
}

// Pod is the part of a core/v1 Pod the supervisor reads: metadata and the
// containers' statuses. It is never written back whole.
type Pod struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	// status, as the kubelet reports it.
	Status PodStatus `json:"status"`
}

// PodStatus is the part of core/v1 PodStatus the supervisor reads.
type PodStatus struct {
	// phase of the pod.
	Phase string `json:"phase,omitempty"`
	// containerStatuses of the regular containers.
	ContainerStatuses []ContainerStatus `json:"containerStatuses,omitempty"`
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
	StartedAt metav1.Time `json:"startedAt,omitempty"`
}

// ContainerStateTerminated is core/v1 ContainerStateTerminated.
type ContainerStateTerminated struct {
	ExitCode    int32       `json:"exitCode"`
	Signal      int32       `json:"signal,omitempty"`
	Reason      string      `json:"reason,omitempty"`
	Message     string      `json:"message,omitempty"`
	StartedAt   metav1.Time `json:"startedAt,omitempty"`
	FinishedAt  metav1.Time `json:"finishedAt,omitempty"`
	ContainerID string      `json:"containerID,omitempty"`
}

// Event is an events.k8s.io/v1 Event.
type Event struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	// eventTime is when the event happened (required).
	EventTime metav1.MicroTime `json:"eventTime"`
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
	APIVersion string    `json:"apiVersion,omitempty"`
	Kind       string    `json:"kind,omitempty"`
	Namespace  string    `json:"namespace,omitempty"`
	Name       string    `json:"name,omitempty"`
	UID        types.UID `json:"uid,omitempty"`
}

// WatchEvent is one event of a watch stream.
type WatchEvent struct {
	// Type: ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.
	Type string
	// Pod is the object (for ERROR, nil; Err says why).
	Pod *Pod
	// Err is set for an ERROR event.
	Err error
}
