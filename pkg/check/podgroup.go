package check

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The PodGroup kinds of the gang schedulers tfgen renders for.
var (
	VolcanoPodGroup          = schema.GroupVersionKind{Group: "scheduling.volcano.sh", Version: "v1beta1", Kind: "PodGroup"}
	SchedulerPluginsPodGroup = schema.GroupVersionKind{Group: "scheduling.x-k8s.io", Version: "v1alpha1", Kind: "PodGroup"}
)

// VolcanoGroup is the part of Volcano's PodGroup that tfgen sets; any other
// field is unknown.
type VolcanoGroup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              VolcanoGroupSpec `json:"spec"`
}

// VolcanoGroupSpec is the spec of a Volcano PodGroup.
type VolcanoGroupSpec struct {
	// minMember is the number of pods that must be schedulable together.
	MinMember int32 `json:"minMember"`
	// minResources is the total the group needs before it is scheduled.
	MinResources corev1.ResourceList `json:"minResources,omitempty"`
	// queue the group waits in.
	Queue string `json:"queue,omitempty"`
	// priorityClassName of the group.
	PriorityClassName string `json:"priorityClassName,omitempty"`
}

// CoschedulingGroup is the part of the scheduler-plugins PodGroup that tfgen
// sets; any other field is unknown.
type CoschedulingGroup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              CoschedulingGroupSpec `json:"spec"`
}

// CoschedulingGroupSpec is the spec of a scheduler-plugins PodGroup.
type CoschedulingGroupSpec struct {
	// minMember is the number of pods that must be schedulable together.
	MinMember int32 `json:"minMember"`
	// minResources is the total the group needs before it is scheduled.
	MinResources corev1.ResourceList `json:"minResources,omitempty"`
	// scheduleTimeoutSeconds is how long the group waits to be scheduled.
	ScheduleTimeoutSeconds *int32 `json:"scheduleTimeoutSeconds,omitempty"`
}
