package t9k

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TensorFlowTrainingJob is a batch.tensorstack.dev/v1beta1 TensorFlowTrainingJob.
type TensorFlowTrainingJob struct {
	metav1.TypeMeta `json:",inline"`
	// metadata of the job.
	ObjectMeta metav1.ObjectMeta `json:"metadata,omitempty"`
	// spec of the job.
	Spec Spec `json:"spec"`
	// status is what the controller wrote; ignored.
	Status any `json:"status,omitempty"`
}

// Spec is the spec of a TensorFlowTrainingJob.
type Spec struct {
	// replicaSpecs lists the replica types.
	ReplicaSpecs []*ReplicaSpec `json:"replicaSpecs"`
	// runPolicy: restarts, deadline and clean-up.
	RunPolicy *RunPolicy `json:"runPolicy,omitempty"`
	// scheduler selects the T9k scheduler; unset is the default scheduler.
	Scheduler *SchedulerPolicy `json:"scheduler,omitempty"`
	// tensorboardSpec asks for a TensorBoard reading the job's logs.
	TensorBoardSpec *TensorBoardSpec `json:"tensorboardSpec,omitempty"`
	// runMode: debug or pause.
	RunMode *RunMode `json:"runMode,omitempty"`
}

// ReplicaSpec is one replica type.
type ReplicaSpec struct {
	// type: chief, worker, ps or evaluator.
	Type string `json:"type"`
	// replicas is the number of pods (default 1).
	Replicas *int32 `json:"replicas,omitempty"`
	// restartPolicy: Never, OnFailure, Always or ExitCode; replaces the
	// template's.
	RestartPolicy string `json:"restartPolicy,omitempty"`
	// template is the pod template.
	Template corev1.PodTemplateSpec `json:"template"`
}

// RunPolicy bounds the job's restarts and run time and says what is
// deleted when it ends.
type RunPolicy struct {
	// backoffLimit is the number of restarts shared by all replicas.
	BackoffLimit *int32 `json:"backoffLimit,omitempty"`
	// activeDeadlineSeconds fails the job this long after it starts.
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty"`
	// cleanUpPolicy: None, All or Unfinished.
	CleanUpPolicy *string `json:"cleanUpPolicy,omitempty"`
}

// SchedulerPolicy selects the scheduler.
type SchedulerPolicy struct {
	// t9kScheduler schedules the job with T9k's scheduler.
	T9kScheduler *T9kScheduler `json:"t9kScheduler,omitempty"`
}

// T9kScheduler places the job in a queue with a priority.
type T9kScheduler struct {
	// queue the job waits in.
	Queue string `json:"queue,omitempty"`
	// priority within the queue.
	Priority *int32 `json:"priority,omitempty"`
}

// TensorBoardSpec asks for a TensorBoard.
type TensorBoardSpec struct {
	// image of the TensorBoard container.
	Image string `json:"image,omitempty"`
	// trainingLogFilesets are t9k://pvc/NAME/PATH locations of event files.
	TrainingLogFilesets []string `json:"trainingLogFilesets,omitempty"`
}

// RunMode selects the debug or the pause mode.
type RunMode struct {
	// debug deploys the job without training.
	Debug *DebugMode `json:"debug,omitempty"`
	// pause stops the job's replicas.
	Pause *PauseMode `json:"pause,omitempty"`
}

// DebugMode replaces the training commands so that users can connect.
type DebugMode struct {
	// enabled turns debug mode on.
	Enabled bool `json:"enabled,omitempty"`
	// replicaSpecs configure replica types; unlisted ones use the defaults.
	ReplicaSpecs []DebugReplicaSpec `json:"replicaSpecs,omitempty"`
}

// DebugReplicaSpec is the debug setting of one replica type.
type DebugReplicaSpec struct {
	// type: chief, worker, ps or evaluator.
	Type string `json:"type"`
	// skipInitContainer drops the replica's init containers.
	SkipInitContainer bool `json:"skipInitContainer,omitempty"`
	// command replaces the training command (default sleep inf).
	Command []string `json:"command,omitempty"`
}

// PauseMode runs no replicas.
type PauseMode struct {
	// enabled turns pause mode on.
	Enabled bool `json:"enabled,omitempty"`
	// resumeSpecs say how replicas resume.
	ResumeSpecs []ResumeSpec `json:"resumeSpecs,omitempty"`
}

// ResumeSpec says how a replica type resumes after a pause.
type ResumeSpec struct {
	// type: chief, worker, ps or evaluator.
	Type string `json:"type"`
	// skipInitContainer drops the replica's init containers.
	SkipInitContainer bool `json:"skipInitContainer,omitempty"`
	// command run when resuming.
	Command []string `json:"command,omitempty"`
	// args of the command.
	Args []string `json:"args,omitempty"`
}
