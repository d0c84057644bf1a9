package record

import (
	"encoding/json"
	"fmt"
	"strconv"
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

// State is a replica's state.
type State string

// Replica states.
const (
	// StateRunning: the training process runs.
	StateRunning State = "Running"
	// StateRestarting: it exited and will be restarted.
	StateRestarting State = "Restarting"
	// StateSucceeded: it exited 0 and will not run again.
	StateSucceeded State = "Succeeded"
	// StateFailed: it failed with no restart left.
	StateFailed State = "Failed"
	// StateStopped: it was stopped from outside (its pod was deleted)
	// while the job was still running; a new pod starts it again.
	StateStopped State = "Stopped"
)

// Status is a job's status. The zero value is a job nobody has started.
type Status struct {
	// conditions of the job, in the order they first appeared.
	Conditions []Condition `json:"conditions,omitempty"`
	// replicaStatuses counts replicas per Kubeflow replica type (Chief,
	// Worker, PS...); derived from replicas on every update.
	ReplicaStatuses map[string]*ReplicaStatus `json:"replicaStatuses,omitempty"`
	// startTime is when the first replica started; activeDeadlineSeconds
	// counts from it.
	StartTime *Time `json:"startTime,omitempty"`
	// completionTime is when the job succeeded or failed.
	CompletionTime *Time `json:"completionTime,omitempty"`
	// restarts counts the restarts of all replicas together; backoffLimit
	// caps it.
	Restarts int32 `json:"restarts"`
	// replicas holds each replica that has started, keyed "type-index"
	// (worker-3).
	Replicas map[string]*Replica `json:"replicas,omitempty"`
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

// Replica is what the record keeps about one replica.
type Replica struct {
	// type is the lowercase replica type (worker).
	Type string `json:"type"`
	// index is the replica's ordinal.
	Index int32 `json:"index"`
	// state of the replica.
	State State `json:"state"`
	// restarts of this replica's training process (maxRestarts caps it).
	Restarts int32 `json:"restarts,omitempty"`
	// lastExitCode of the training process; 128+n after signal n.
	LastExitCode *int32 `json:"lastExitCode,omitempty"`
	// reason of the last change (Completed, Error, OOMKilled, ...).
	Reason string `json:"reason,omitempty"`
	// updateTime is when this entry was last written.
	UpdateTime Time `json:"updateTime,omitzero"`
	// lastExitID identifies the last exit counted (sidecar mode: the
	// container ID and finish time), so that no exit counts twice.
	LastExitID string `json:"lastExitID,omitempty"`
}

// Key returns the key of replica index of type t in Status.Replicas.
func Key(t string, index int32) string { return t + "-" + strconv.Itoa(int(index)) }

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
