package record

import (
	"encoding/json"
	"fmt"
)

// DataKey is the record ConfigMap's data key that holds the status.
const DataKey = "status.json"

// ConditionType is a Kubeflow job condition type.
type ConditionType string

// Job condition types, as in Kubeflow's TFJob status.
const (
	JobCreated    ConditionType = "Created"
	JobRunning    ConditionType = "Running"
	JobRestarting ConditionType = "Restarting"
	JobSucceeded  ConditionType = "Succeeded"
	JobFailed     ConditionType = "Failed"
	JobSuspended  ConditionType = "Suspended"
)

// ConditionStatus is "True" or "False".
type ConditionStatus string

// Condition statuses.
const (
	ConditionTrue  ConditionStatus = "True"
	ConditionFalse ConditionStatus = "False"
)

// Status is a job's status. The zero value is a job nobody has started.
type Status struct {
	// conditions of the job, in the order they first appeared.
	Conditions []Condition `json:"conditions,omitempty"`
	// replicaStatuses counts replicas per Kubeflow replica type (Chief,
	// Worker, PS...), as the keeper last saw their pods.
	ReplicaStatuses map[string]*ReplicaStatus `json:"replicaStatuses,omitempty"`
	// startTime is when the first replica ran; activeDeadlineSeconds
	// counts from it.
	StartTime *Time `json:"startTime,omitempty"`
	// completionTime is when the job succeeded or failed.
	CompletionTime *Time `json:"completionTime,omitempty"`
	// restarts counts the restarts of all replicas together (backoffLimit
	// caps it): restartsOfGonePods plus those of each replica's current
	// pod, restarts granted included.
	Restarts int32 `json:"restarts"`
	// restartGeneration, under restart scope Job, counts the job-wide
	// restarts: each rise restarts every replica's training process (and
	// is restarts, backoffLimit's count).
	RestartGeneration int32 `json:"restartGeneration,omitempty"`
	// restartsOfGonePods counts the restarts of pods that are gone.
	RestartsOfGonePods int32 `json:"restartsOfGonePods,omitempty"`
	// restartGrants, under backoffLimit, holds the restarts granted and
	// not yet taken up: "worker-3": 2 lets worker-3 run for the second
	// time after a failure. Each is counted in restarts when granted.
	RestartGrants map[string]int32 `json:"restartGrants,omitempty"`
	// succeeded holds, per lowercase replica type, the indices of the
	// replicas that have succeeded ("0-3,5"); they never train again,
	// even in a new pod.
	Succeeded map[string]*IndexSet `json:"succeeded,omitempty"`
	// failed holds, per lowercase replica type, the indices of the
	// replicas that failed for good ("2,7"); like succeeded ones, they
	// never train again, and their pods may be released.
	Failed map[string]*IndexSet `json:"failed,omitempty"`
	// failures holds the replicas that failed (at most MaxFailures), so
	// that `tfgen status` shows them after their pods are gone.
	Failures map[string]*Failure `json:"failures,omitempty"`
	// stop lists the lowercase replica types whose training processes
	// stop now that the job has ended.
	Stop []string `json:"stop,omitempty"`
	// teardown lists the lowercase replica types released (their
	// StatefulSets scaled to zero) since the job ended, by the clean pod
	// policy or the TTL after finishing; last, once they all are, the
	// keeper's own StatefulSet ("keeper").
	Teardown []string `json:"teardown,omitempty"`
	// gated lists the lowercase replica types whose pods are made gated
	// (scheduling gate tfgen.io/finished in their StatefulSet's template,
	// which its controller has seen): a finished replica of such a type
	// gives its pod back at once, and the pod its StatefulSet makes again
	// is never scheduled, holding nothing.
	Gated []string `json:"gated,omitempty"`
	// layout holds the replica counts the job runs with, by lowercase
	// type, where a resize (tfgen scale, an elastic job's keeper) changed
	// them from its spec: the supervisors build TF_CONFIG from them, and
	// the keeper keeps the StatefulSets at them.
	Layout map[string]int32 `json:"layout,omitempty"`
	// layoutGeneration counts the resizes: a replica whose training
	// process started under an earlier one, and whose TF_CONFIG the resize
	// changed, restarts it in place with the new one.
	LayoutGeneration int32 `json:"layoutGeneration,omitempty"`
	// resizedAt is when the last resize was written.
	ResizedAt *Time `json:"resizedAt,omitempty"`
	// evaluatorDeadline, when the job succeeded while its evaluator ran,
	// is when the evaluator is stopped if it has not finished by then;
	// until it finishes or is stopped, its type is not in stop.
	EvaluatorDeadline *Time `json:"evaluatorDeadline,omitempty"`
}

// Condition is one Kubeflow job condition.
type Condition struct {
	// type of the condition.
	Type ConditionType `json:"type"`
	// status: True or False.
	Status ConditionStatus `json:"status"`
	// reason is UpperCamelCase, e.g. JobSucceeded, BackoffLimitExceeded.
	Reason string `json:"reason,omitempty"`
	// message for humans.
	Message string `json:"message,omitempty"`
	// lastUpdateTime is when the condition was last written.
	LastUpdateTime Time `json:"lastUpdateTime,omitzero"`
	// lastTransitionTime is when status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitzero"`
}

// ReplicaStatus counts the replicas of one type, as Kubeflow does.
type ReplicaStatus struct {
	// active replicas (running or restarting).
	Active int32 `json:"active,omitempty"`
	// succeeded replicas.
	Succeeded int32 `json:"succeeded,omitempty"`
	// failed replicas.
	Failed int32 `json:"failed,omitempty"`
}

// MaxFailures is the most failed replicas a status keeps.
const MaxFailures = 16

// Failure is how a replica failed, as its record said.
type Failure struct {
	// exitCode of its last exit.
	ExitCode *int32 `json:"exitCode,omitempty"`
	// reason of its failure (Error, OOMKilled, MaxRestartsExceeded,
	// BackoffLimitExceeded).
	Reason string `json:"reason,omitempty"`
	// restarts it had.
	Restarts int32 `json:"restarts,omitempty"`
}

// AddFailure keeps how replica ref failed, unless MaxFailures are kept.
func (s *Status) AddFailure(ref string, f Failure) {
	if _, ok := s.Failures[ref]; ok || len(s.Failures) >= MaxFailures {
		return
	}
	if s.Failures == nil {
		s.Failures = map[string]*Failure{}
	}
	s.Failures[ref] = &f
}

// Parse reads the status from a record ConfigMap's data; a missing key
// gives the zero Status.
func Parse(data map[string]string) (*Status, error) {
	s := &Status{}
	raw, ok := data[DataKey]
	if !ok || raw == "" {
		return s, nil
	}
	if err := json.Unmarshal([]byte(raw), s); err != nil {
		return nil, fmt.Errorf("parse %s: %w", DataKey, err)
	}
	return s, nil
}

// Marshal returns the status as the JSON stored under DataKey.
func (s *Status) Marshal() (string, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return "", fmt.Errorf("marshal %s: %w", DataKey, err)
	}
	return string(b), nil
}

// DeepCopy returns an independent copy of s.
func (s *Status) DeepCopy() *Status {
	if s == nil {
		return nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("record: copy status: %v", err))
	}
	c := &Status{}
	if err := json.Unmarshal(b, c); err != nil {
		panic(fmt.Sprintf("record: copy status: %v", err))
	}
	return c
}

// Equal reports whether s and o hold the same status.
func (s *Status) Equal(o *Status) bool {
	a, err1 := json.Marshal(s)
	b, err2 := json.Marshal(o)
	return err1 == nil && err2 == nil && string(a) == string(b)
}
