package mxv1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MXJob is a list-shaped MXJob.
type MXJob struct {
	metav1.TypeMeta `json:",inline"`
	// metadata of the job.
	ObjectMeta metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec of the job.
	Spec MXJobSpec `json:"spec"`
	// status is what the operator wrote; ignored.
	Status any `json:"status,omitempty"`
}

// MXJobSpec is the spec of a list-shaped MXJob.
type MXJobSpec struct {
	// RuntimeId was chosen by the operator to name objects; ignored.
	RuntimeID string `json:"RuntimeId,omitempty"`
	// replicaSpecs lists the replica types of the job.
	ReplicaSpecs []*MXReplicaSpec `json:"replicaSpecs"`
	// mxImage was meant for a default parameter server the operator never
	// created; accepted without effect.
	MXImage *string `json:"mxImage,omitempty"`
	// terminationPolicy says which replica's completion ends the job.
	TerminationPolicy *TerminationPolicySpec `json:"terminationPolicy,omitempty"`
	// schedulerName is set on every pod.
	SchedulerName string `json:"schedulerName,omitempty"`
	// jobMode: dist (default) or local.
	JobMode *string `json:"jobMode,omitempty"`
}

// MXReplicaSpec is one replica type.
type MXReplicaSpec struct {
	// replicas is the number of pods (default 1).
	Replicas *int32 `json:"replicas,omitempty"`
	// template is the pod template, with a container named mxnet.
	Template *corev1.PodTemplateSpec `json:"template,omitempty"`
	// PsRootPort is the port the replicas listen on; the scheduler's is
	// DMLC_PS_ROOT_PORT (default 9091).
	PsRootPort *int32 `json:"PsRootPort,omitempty"`
	// mxReplicaType: SCHEDULER, SERVER or WORKER, in any case.
	MXReplicaType string `json:"mxReplicaType"`
}

// TerminationPolicySpec names the replica that decides completion.
type TerminationPolicySpec struct {
	// chief is that replica.
	Chief *ChiefSpec `json:"chief,omitempty"`
}

// ChiefSpec is one replica: a type and an index.
type ChiefSpec struct {
	// replicaName is the replica type: SCHEDULER, SERVER or WORKER.
	ReplicaName string `json:"replicaName"`
	// replicaIndex is the replica's index.
	ReplicaIndex int32 `json:"replicaIndex"`
}

// SetDefaultsMXJob applies the operator's defaults: jobMode dist, one
// replica. Ports default to 9091 and restart policies to the pod template's,
// else ExitCode for the scheduler (its exit code decides the job) and
// OnFailure for servers and workers ("automatically restarted").
func SetDefaultsMXJob(s *MXJobSpec) {
	if s.JobMode == nil {
		mode := "dist"
		s.JobMode = &mode
	}
	for _, r := range s.ReplicaSpecs {
		if r != nil && r.Replicas == nil {
			one := int32(1)
			r.Replicas = &one
		}
	}
}
