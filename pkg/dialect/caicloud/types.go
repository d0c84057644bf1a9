package caicloud

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TFJob is a kubeflow.caicloud.io/v1alpha1 TFJob.
type TFJob struct {
	metav1.TypeMeta `json:",inline"`
	// metadata of the job.
	ObjectMeta metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec of the job.
	Spec TFJobSpec `json:"spec"`
	// status is what the controller wrote; ignored.
	Status any `json:"status,omitempty"`
}

// TFJobSpec is the spec of a TFJob.
type TFJobSpec struct {
	// type: Training (the default), Serving or TensorBoard. The
	// clientset's examples set it; its Go types do not have it.
	Type *string `json:"type,omitempty"`
	// runtimeID was chosen by the controller to label its pods; ignored.
	RuntimeID string `json:"runtimeID,omitempty"`
	// dataDir is the path of the data set; the controller never read it.
	DataDir *string `json:"dataDir,omitempty"`
	// modelDir is the path of checkpoints and graphs; never read.
	ModelDir *string `json:"modelDir,omitempty"`
	// logDir is the path of the event files; never read.
	LogDir *string `json:"logDir,omitempty"`
	// exportDir is the path of the saved model; never read.
	ExportDir *string `json:"exportDir,omitempty"`
	// tfReplicaSpec lists the replica types: PS and Worker, or one Local.
	Specs []*TFReplicaSpec `json:"tfReplicaSpec"`
}

// TFReplicaSpec is one replica type.
type TFReplicaSpec struct {
	// replicas is the number of pods (default 1; a Local spec runs one).
	Replicas *int32 `json:"replicas,omitempty"`
	// tfReplicaType: PS, Worker or Local, spelled so.
	TFReplicaType *string `json:"tfReplicaType,omitempty"`
	// template is the pod template.
	Template *corev1.PodTemplateSpec `json:"template,omitempty"`
	// terminationPolicy names a chief whose exit ends the job; the
	// controller never read it.
	TerminationPolicy *TerminationPolicySpec `json:"terminationPolicy,omitempty"`
}

// TerminationPolicySpec says when the job is finished.
type TerminationPolicySpec struct {
	// chief is the replica whose exit ends the job.
	Chief *ChiefSpec `json:"chief,omitempty"`
}

// ChiefSpec is one replica: a type and an index.
type ChiefSpec struct {
	// tfReplicaName is the replica type.
	TFReplicaName string `json:"tfReplicaName"`
	// tfReplicaIndex is the replica's index.
	TFReplicaIndex int32 `json:"tfReplicaIndex"`
}
