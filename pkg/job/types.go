package job

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Framework names the training framework of a job.
type Framework string

// The frameworks tfgen supports.
const (
	TensorFlow Framework = "tensorflow"
	MXNet      Framework = "mxnet"
)

// ReplicaType is a replica role spelled as Kubeflow v1 does (Chief, Worker, ...).
type ReplicaType string

// TensorFlow replica types.
const (
	Chief     ReplicaType = "Chief"
	Master    ReplicaType = "Master"
	Worker    ReplicaType = "Worker"
	PS        ReplicaType = "PS"
	Evaluator ReplicaType = "Evaluator"
)

// MXNet replica types (MXTune roles included).
const (
	Scheduler    ReplicaType = "Scheduler"
	Server       ReplicaType = "Server"
	TunerTracker ReplicaType = "TunerTracker"
	TunerServer  ReplicaType = "TunerServer"
	Tuner        ReplicaType = "Tuner"
)

// RestartPolicy says when a replica's training process is restarted.
type RestartPolicy string

// Restart policies.
const (
	RestartNever     RestartPolicy = "Never"
	RestartOnFailure RestartPolicy = "OnFailure"
	RestartAlways    RestartPolicy = "Always"
	RestartExitCode  RestartPolicy = "ExitCode"
)

// CleanPodPolicy says which replicas are stopped when the job ends.
type CleanPodPolicy string

// Clean-pod policies (T9k's Unfinished converts to Running).
const (
	CleanAll     CleanPodPolicy = "All"
	CleanRunning CleanPodPolicy = "Running"
	CleanNone    CleanPodPolicy = "None"
)

// SuccessPolicy says which replicas decide the job's success.
type SuccessPolicy string

// LabelKueueQueue is Kueue's queue label: on a job, it chooses Kueue and
// its queue (SetDefaults), as on a TFJob under Kueue.
const LabelKueueQueue = "kueue.x-k8s.io/queue-name"

// Job annotations that choose tfgen's own behaviours (the render flags of
// the same names set them on jobs that do not).
const (
	// AnnotationEvaluatorGrace: how long (a Go duration, "10m") a running
	// evaluator may go on once the job succeeded, before it is stopped.
	AnnotationEvaluatorGrace = "tfgen.io/evaluator-grace"
	// AnnotationRestartScope: Replica (the default) or Job: a retryable
	// failure of any replica restarts every replica's training process.
	AnnotationRestartScope = "tfgen.io/restart-scope"
	// AnnotationElastic: dragon resizes the job's workers at run time by
	// DRAGON's strategy, within minInstances and maxInstances (on for a
	// DRAGON job in wrap mode); none does not.
	AnnotationElastic = "tfgen.io/elastic"
	// AnnotationLocality: where the scheduler is asked to put the job's
	// replicas (preferred pod affinity): node (workers toward a parameter
	// server's node, every replica toward the job's other pods' node), zone
	// (the same by zone) or none. Unset: node for a DRAGON job (one with
	// minInstances or maxInstances), none for any other.
	AnnotationLocality = "tfgen.io/locality"
)

// Localities are the values of AnnotationLocality.
var Localities = []string{"node", "zone", "none"}

// Success policies.
const (
	SuccessDefault    SuccessPolicy = ""
	SuccessAllWorkers SuccessPolicy = "AllWorkers"
)

// Job is the canonical training job.
type Job struct {
	// name of the job; every object name derives from it. In the Helm chart
	// it defaults to the release name.
	Name string `json:"name,omitempty"`
	// namespace of the job; empty leaves it to `kubectl apply -n`.
	Namespace string `json:"namespace,omitempty"`
	// labels copied from the job's metadata onto every object.
	Labels map[string]string `json:"labels,omitempty"`
	// annotations copied from the job's metadata onto the record ConfigMap.
	Annotations map[string]string `json:"annotations,omitempty"`

	// tfReplicaSpecs of a TensorFlow job, keyed by ReplicaType.
	TFReplicaSpecs map[ReplicaType]*ReplicaSpec `json:"tfReplicaSpecs,omitempty"`
	// mxReplicaSpecs of an MXNet job, keyed by ReplicaType.
	MXReplicaSpecs map[ReplicaType]*ReplicaSpec `json:"mxReplicaSpecs,omitempty"`

	// runPolicy: clean-up, deadlines, backoff and scheduling.
	RunPolicy RunPolicy `json:"runPolicy,omitempty"`
	// successPolicy: "" (chief, else worker 0) or AllWorkers.
	SuccessPolicy SuccessPolicy `json:"successPolicy,omitempty"`
	// successReplica names the replica whose success ends the job
	// (kubeflow.org/v1alpha1 terminationPolicy.chief); nil means the default rule.
	SuccessReplica *ReplicaRef `json:"successReplica,omitempty"`
	// successWorkers, in a job without a chief, is how many workers must
	// succeed for the job to succeed: a count (3) or a percentage of the
	// workers ("50%", rounded up). Nil: worker 0 decides, or every worker
	// under AllWorkers.
	SuccessWorkers *intstr.IntOrString `json:"successWorkers,omitempty"`
	// enableDynamicWorker gives workers the sparse TF_CONFIG form; a
	// worker's failure then fails the job only when it can no longer
	// succeed.
	EnableDynamicWorker bool `json:"enableDynamicWorker,omitempty"`
	// jobMode of an MXNet job: dist (default), local or MXTune.
	JobMode string `json:"jobMode,omitempty"`
	// minInstances and maxInstances bound the worker count (DRAGON).
	MinInstances *int32 `json:"minInstances,omitempty"`
	MaxInstances *int32 `json:"maxInstances,omitempty"`
	// tensorboard, when set, adds a TensorBoard Deployment and Service.
	TensorBoard *TensorBoard `json:"tensorboard,omitempty"`
	// scheduler selects gang scheduling and queueing.
	Scheduler *SchedulerSpec `json:"scheduler,omitempty"`

	// Source says where the job came from; never serialised.
	Source Source `json:"-"`
}

// ReplicaSpec describes one replica type.
type ReplicaSpec struct {
	// replicas is the number of pods of this type (default 1).
	Replicas *int32 `json:"replicas,omitempty"`
	// restartPolicy of the training process (default Never).
	RestartPolicy RestartPolicy `json:"restartPolicy,omitempty"`
	// retryableExitCodes replaces the ExitCode rule's default (128-255 retryable).
	RetryableExitCodes []int32 `json:"retryableExitCodes,omitempty"`
	// maxRestarts caps this replica's restarts (nil: only backoffLimit applies).
	MaxRestarts *int32 `json:"maxRestarts,omitempty"`
	// port the training process listens on (default 2222 TF, 9091 MXNet).
	Port *int32 `json:"port,omitempty"`
	// label of an MXTune role, carried in MX_CONFIG.
	Label string `json:"label,omitempty"`
	// template is the user's pod template, kept intact.
	Template corev1.PodTemplateSpec `json:"template"`
}

// ReplicaRef names one replica.
type ReplicaRef struct {
	Type  ReplicaType `json:"type"`
	Index int32       `json:"index"`
}

// RunPolicy follows Kubeflow's RunPolicy.
type RunPolicy struct {
	// cleanPodPolicy: All, Running or None (default Running: parameter
	// servers and other unfinished replicas stop when the job ends).
	CleanPodPolicy CleanPodPolicy `json:"cleanPodPolicy,omitempty"`
	// ttlSecondsAfterFinished: delete the job's pods this long after it ends.
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty"`
	// activeDeadlineSeconds from the job's start; then the job fails.
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty"`
	// backoffLimit: restarts allowed across the whole job.
	BackoffLimit *int32 `json:"backoffLimit,omitempty"`
	// schedulingPolicy for gang scheduling.
	SchedulingPolicy *SchedulingPolicy `json:"schedulingPolicy,omitempty"`
	// suspend renders the job with no running replicas.
	Suspend *bool `json:"suspend,omitempty"`
	// managedBy is accepted for compatibility; tfgen manages the job itself.
	ManagedBy *string `json:"managedBy,omitempty"`
}

// SchedulingPolicy follows Kubeflow's SchedulingPolicy.
type SchedulingPolicy struct {
	MinAvailable           *int32              `json:"minAvailable,omitempty"`
	Queue                  string              `json:"queue,omitempty"`
	MinResources           corev1.ResourceList `json:"minResources,omitempty"`
	PriorityClass          string              `json:"priorityClass,omitempty"`
	ScheduleTimeoutSeconds *int32              `json:"scheduleTimeoutSeconds,omitempty"`
}

// SchedulerSpec selects how the job's pods are scheduled.
type SchedulerSpec struct {
	// gang: "" (none), volcano, scheduler-plugins, kueue or kubernetes
	// (the Workload API, scheduling.k8s.io/v1beta1).
	Gang string `json:"gang,omitempty"`
	// schedulerName set on every pod when not empty (volcano sets its own).
	SchedulerName string `json:"schedulerName,omitempty"`
	// queue of the scheduler named by schedulerName (T9k's t9kScheduler.queue).
	Queue string `json:"queue,omitempty"`
	// priority from T9k's t9kScheduler, kept as a pod annotation.
	Priority *int32 `json:"priority,omitempty"`
}

// TensorBoard asks for a TensorBoard Deployment and Service.
type TensorBoard struct {
	LogDir       string               `json:"logDir"`
	Image        string               `json:"image,omitempty"`
	Volumes      []corev1.Volume      `json:"volumes,omitempty"`
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts,omitempty"`
	ServiceType  corev1.ServiceType   `json:"serviceType,omitempty"`
}

// Source records the dialect a job was written in, so that messages name
// fields the way the user wrote them.
type Source struct {
	// APIVersion and Kind of the input document.
	APIVersion string
	Kind       string
	// File the document came from ("-" for stdin) and its index in the file.
	File  string
	Index int
	// Paths maps canonical locations to the user's field paths.
	Paths Paths
}

// Paths gives the user's field path for parts of the canonical job. A nil
// function falls back to the Kubeflow v1 spelling.
type Paths struct {
	Replica   func(ReplicaType) *field.Path
	RunPolicy *field.Path
	// Replicas is the path of the replica specs as a whole
	// (spec.replicaSpecs); nil means spec.tfReplicaSpecs or spec.mxReplicaSpecs.
	Replicas *field.Path
	// Fields maps canonical field names a dialect spells differently to the
	// user's path: spec-level fields by JSON name ("minInstances" →
	// spec.min-instances), run-policy fields as "runPolicy.NAME", replica
	// fields as "TYPE.NAME" ("Worker.port" → spec.replicaSpecs[1].tfPort).
	Fields map[string]*field.Path
}
