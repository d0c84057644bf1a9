package tfv1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TfJob is a tensorflow.org/v1alpha1 or mlkube.io/v1beta1 TfJob.
type TfJob struct {
	metav1.TypeMeta `json:",inline"`
	// metadata of the job.
	ObjectMeta metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec of the job.
	Spec TfJobSpec `json:"spec"`
	// status is what the operator wrote; ignored.
	Status any `json:"status,omitempty"`
}

// TfJobSpec is the spec of a TfJob.
type TfJobSpec struct {
	// RuntimeId was chosen by the operator to name objects; ignored.
	RuntimeID string `json:"RuntimeId,omitempty"`
	// replicaSpecs lists the replica types of the job.
	ReplicaSpecs []*TfReplicaSpec `json:"replicaSpecs,omitempty"`
	// replica_specs is the snake_case spelling of replicaSpecs.
	ReplicaSpecsSnake []*TfReplicaSpec `json:"replica_specs,omitempty"`
	// tfImage runs the default parameter server (default tensorflow/tensorflow:1.3.0).
	TFImage *string `json:"tfImage,omitempty"`
	// tf_image is the snake_case spelling of tfImage.
	TFImageSnake *string `json:"tf_image,omitempty"`
	// tensorboard asks for a TensorBoard instance.
	TensorBoard *TensorBoardSpec `json:"tensorboard,omitempty"`
}

// TfReplicaSpec is one replica type.
type TfReplicaSpec struct {
	// replicas is the number of pods (default 1).
	Replicas *int32 `json:"replicas,omitempty"`
	// template is the pod template; a PS may leave it out.
	Template *corev1.PodTemplateSpec `json:"template,omitempty"`
	// tfPort is the port TensorFlow listens on (default 2222).
	TFPort *int32 `json:"tfPort,omitempty"`
	// tf_port is the snake_case spelling of tfPort.
	TFPortSnake *int32 `json:"tf_port,omitempty"`
	// tfReplicaType: MASTER (default), WORKER or PS, in any case.
	TFReplicaType *string `json:"tfReplicaType,omitempty"`
	// tf_replica_type is the snake_case spelling of tfReplicaType.
	TFReplicaTypeSnake *string `json:"tf_replica_type,omitempty"`
	// IsDefaultPS was written by the operator (kubectl get -o yaml): true
	// means it generated the PS template, which is generated again.
	IsDefaultPS *bool `json:"IsDefaultPS,omitempty"`
}

// TensorBoardSpec asks for a TensorBoard Deployment and Service.
type TensorBoardSpec struct {
	// logDir is where TensorBoard reads event files.
	LogDir string `json:"logDir"`
	// volumes of the TensorBoard pod.
	Volumes []corev1.Volume `json:"volumes,omitempty"`
	// volumeMounts of the TensorBoard container.
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts,omitempty"`
	// serviceType of the TensorBoard Service (default ClusterIP).
	ServiceType corev1.ServiceType `json:"serviceType,omitempty"`
}

// TFJob is a kubeflow.org/v1alpha1 TFJob.
type TFJob struct {
	metav1.TypeMeta `json:",inline"`
	// metadata of the job.
	ObjectMeta metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec of the job.
	Spec TFJobSpec `json:"spec"`
	// status is what the operator wrote; ignored.
	Status any `json:"status,omitempty"`
}

// TFJobSpec is a TfJobSpec with a termination policy, a clean-pod policy
// and a scheduler name.
type TFJobSpec struct {
	TfJobSpec
	// terminationPolicy says which replica's completion ends the job.
	TerminationPolicy *TerminationPolicySpec `json:"terminationPolicy,omitempty"`
	// cleanPodPolicy: CleanAll, CleanRunning or CleanNone.
	CleanPodPolicy *string `json:"cleanPodPolicy,omitempty"`
	// schedulerName is set on every pod.
	SchedulerName string `json:"schedulerName,omitempty"`
}

// TerminationPolicySpec names the replica that decides completion.
type TerminationPolicySpec struct {
	// chief is that replica.
	Chief *ChiefSpec `json:"chief,omitempty"`
}

// ChiefSpec is one replica: a type and an index.
type ChiefSpec struct {
	// replicaName is the replica type: MASTER, WORKER or PS.
	ReplicaName string `json:"replicaName"`
	// replicaIndex is the replica's index.
	ReplicaIndex int32 `json:"replicaIndex"`
}
