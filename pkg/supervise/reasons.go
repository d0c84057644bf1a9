package supervise

// Event reasons (UpperCamelCase, as events.k8s.io/v1 wants) and the
// reasons of the job's Failed and Succeeded conditions.
const (
	ReasonReplicaStarted       = "ReplicaStarted"
	ReasonReplicaExited        = "ReplicaExited"
	ReasonReplicaRestarting    = "ReplicaRestarting"
	ReasonReplicaFailed        = "ReplicaFailed"
	ReasonReplicaStopped       = "ReplicaStopped"
	ReasonReplicaIdle          = "ReplicaIdle"
	ReasonJobSucceeded         = "JobSucceeded"
	ReasonJobFailed            = "JobFailed"
	ReasonDeadlineExceeded     = "DeadlineExceeded"
	ReasonBackoffLimitExceeded = "BackoffLimitExceeded"
	ReasonMaxRestartsExceeded  = "MaxRestartsExceeded"
	ReasonTeardown             = "Teardown"
	ReasonTeardownFailed       = "TeardownFailed"
	ReasonTTLExpired           = "TTLExpired"
	ReasonEvaluatorStopped     = "EvaluatorStopped"
	ReasonJobRestarting        = "JobRestarting"
	ReasonElasticResize        = "ElasticResize"
)

// Reasons a replica's training process was stopped from outside (the
// reason of its Stopped state).
const (
	// ReasonJobEnded: the job ended, and its clean pod policy stops the
	// replica's type.
	ReasonJobEnded = "JobEnded"
	// ReasonSuspended: the job was suspended.
	ReasonSuspended = "Suspended"
	// ReasonTerminated: the supervisor got SIGTERM or SIGINT (its pod is
	// going away).
	ReasonTerminated = "Terminated"
	// ReasonDisrupted: sidecar mode, the training container exited while
	// its pod was being deleted, evicted or preempted.
	ReasonDisrupted = "Disrupted"
	// ReasonJobRestart: under restart scope Job, another replica failed
	// and every replica's training process restarts.
	ReasonJobRestart = "JobRestart"
	// ReasonResized: the job was resized, and the replica's cluster
	// environment changed: its training process restarts with the new
	// one, counted nowhere.
	ReasonResized = "Resized"
)
