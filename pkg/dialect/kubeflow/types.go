package kubeflow

import (
	corev1 "k8s.io/api/core/v1"
)

// ReplicaSpec is Kubeflow's replica spec (common/v1 ReplicaSpec).
type ReplicaSpec struct {
	// replicas is the number of pods of this type (default 1).
	Replicas *int32 `json:"replicas,omitempty"`
	// template is the pod template of the replicas.
	Template corev1.PodTemplateSpec `json:"template,omitempty"`
	// restartPolicy: Never (default), OnFailure, Always or ExitCode.
	RestartPolicy string `json:"restartPolicy,omitempty"`
}

// MXReplicaSpec is an MXJob replica spec: Kubeflow's plus MXTune's label.
type MXReplicaSpec struct {
	ReplicaSpec
	// label of an MXTune role, passed to it in MX_CONFIG.
	Label string `json:"label,omitempty"`
}

// RunPolicy is Kubeflow's run policy (spec.runPolicy in kubeflow.org/v1).
type RunPolicy struct {
	// cleanPodPolicy: All, Running or None.
	CleanPodPolicy *string `json:"cleanPodPolicy,omitempty"`
	// ttlSecondsAfterFinished deletes the pods this long after the job ends.
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty"`
	// activeDeadlineSeconds fails the job this long after it starts.
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty"`
	// backoffLimit is the number of restarts the whole job allows.
	BackoffLimit *int32 `json:"backoffLimit,omitempty"`
	// schedulingPolicy configures gang scheduling.
	SchedulingPolicy *SchedulingPolicy `json:"schedulingPolicy,omitempty"`
	// suspend creates the job with no running pods.
	Suspend *bool `json:"suspend,omitempty"`
	// managedBy names the controller of the job.
	ManagedBy *string `json:"managedBy,omitempty"`
}

// FlatRunPolicy holds the run-policy fields that TFJob and MXJob specs
// before kubeflow.org/v1's runPolicy wrote at the top of spec.
type FlatRunPolicy struct {
	// cleanPodPolicy: All, Running or None.
	CleanPodPolicy *string `json:"cleanPodPolicy,omitempty"`
	// ttlSecondsAfterFinished deletes the pods this long after the job ends.
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty"`
	// activeDeadlineSeconds fails the job this long after it starts.
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty"`
	// backoffLimit is the number of restarts the whole job allows.
	BackoffLimit *int32 `json:"backoffLimit,omitempty"`
}

// FlatSchedulingPolicy is the schedulingPolicy that tf-operator's v1,
// inlining kubeflow/common's RunPolicy, wrote at the top of spec.
type FlatSchedulingPolicy struct {
	// schedulingPolicy configures gang scheduling.
	SchedulingPolicy *SchedulingPolicy `json:"schedulingPolicy,omitempty"`
}

// SchedulingPolicy is Kubeflow's gang-scheduling policy.
type SchedulingPolicy struct {
	// minAvailable is the number of pods scheduled together.
	MinAvailable *int32 `json:"minAvailable,omitempty"`
	// queue of the gang scheduler.
	Queue string `json:"queue,omitempty"`
	// minResources the group needs.
	MinResources corev1.ResourceList `json:"minResources,omitempty"`
	// priorityClass of the group.
	PriorityClass string `json:"priorityClass,omitempty"`
	// scheduleTimeoutSeconds before the group gives up.
	ScheduleTimeoutSeconds *int32 `json:"scheduleTimeoutSeconds,omitempty"`
}

// SetDefaultsReplicaSpec applies Kubeflow's replica defaults: one replica,
// restartPolicy Never.
func SetDefaultsReplicaSpec(s *ReplicaSpec) {
	if s.Replicas == nil {
		one := int32(1)
		s.Replicas = &one
	}
	if s.RestartPolicy == "" {
		s.RestartPolicy = "Never"
	}
}
