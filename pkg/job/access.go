package job

import (
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Framework reports the job's framework: MXNet when it has mxReplicaSpecs.
func (j *Job) Framework() Framework {
	if len(j.MXReplicaSpecs) > 0 {
		return MXNet
	}
	return TensorFlow
}

// Replicas returns the replica specs of the job's framework.
func (j *Job) Replicas() map[ReplicaType]*ReplicaSpec {
	if j.Framework() == MXNet {
		return j.MXReplicaSpecs
	}
	return j.TFReplicaSpecs
}

// ReplicaTypes returns the job's replica types sorted by name, the order
// in which Helm ranges over a map.
func (j *Job) ReplicaTypes() []ReplicaType {
	types := make([]ReplicaType, 0, len(j.Replicas()))
	for t := range j.Replicas() {
		types = append(types, t)
	}
	sort.Slice(types, func(a, b int) bool { return types[a] < types[b] })
	return types
}

// Lower returns the replica type as it appears in object names and TF_CONFIG.
func (t ReplicaType) Lower() string { return strings.ToLower(string(t)) }

// ReplicaPath returns the user's field path of replica type t.
func (j *Job) ReplicaPath(t ReplicaType) *field.Path {
	if j.Source.Paths.Replica != nil {
		return j.Source.Paths.Replica(t)
	}
	key := "tfReplicaSpecs"
	if j.Framework() == MXNet {
		key = "mxReplicaSpecs"
	}
	return field.NewPath("spec", key).Key(string(t))
}

// RunPolicyPath returns the user's field path of the run policy.
func (j *Job) RunPolicyPath() *field.Path {
	if j.Source.Paths.RunPolicy != nil {
		return j.Source.Paths.RunPolicy
	}
	return field.NewPath("spec", "runPolicy")
}

// ReplicasPath returns the user's field path of the replica specs as a whole.
func (j *Job) ReplicasPath() *field.Path {
	if j.Source.Paths.Replicas != nil {
		return j.Source.Paths.Replicas
	}
	if j.Framework() == MXNet {
		return field.NewPath("spec", "mxReplicaSpecs")
	}
	return field.NewPath("spec", "tfReplicaSpecs")
}

// SpecFieldPath returns the user's path of the spec-level field with
// canonical JSON name name (spec.NAME unless the dialect spells it otherwise).
func (j *Job) SpecFieldPath(name string) *field.Path {
	if p := j.Source.Paths.Fields[name]; p != nil {
		return p
	}
	return field.NewPath("spec", name)
}

// RunPolicyFieldPath returns the user's path of run-policy field name.
func (j *Job) RunPolicyFieldPath(name string) *field.Path {
	if p := j.Source.Paths.Fields["runPolicy."+name]; p != nil {
		return p
	}
	return j.RunPolicyPath().Child(name)
}

// ReplicaFieldPath returns the user's path of field name of replica type t.
func (j *Job) ReplicaFieldPath(t ReplicaType, name string) *field.Path {
	if p := j.Source.Paths.Fields[string(t)+"."+name]; p != nil {
		return p
	}
	return j.ReplicaPath(t).Child(name)
}

// Count returns the number of replicas of spec, 1 when unset.
func (s *ReplicaSpec) Count() int32 {
	if s == nil {
		return 0
	}
	if s.Replicas == nil {
		return 1
	}
	return *s.Replicas
}

// Kueue reports whether Kueue admits the job (gang scheduler kueue).
func (j *Job) Kueue() bool {
	return j.Scheduler != nil && j.Scheduler.Gang == "kueue"
}
