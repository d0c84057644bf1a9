package values

import (
	"encoding/json"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/manifest"
)

// chart is the values file: the job's fields at the top level plus `tfgen`.
type chart struct {
	*job.Job
	TFGen job.Settings `json:"tfgen"`
}

// Build returns the chart values of j rendered with s, as Helm would read
// them from a values file: one JSON round trip, so numbers are float64.
func Build(j *job.Job, s job.Settings) (map[string]any, error) {
	b, err := Marshal(j, s)
	if err != nil {
		return nil, err
	}
	if v, ok := manifest.DecodeJSON(b); ok {
		return v, nil
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("values of job %s: %w", j.Name, err)
	}
	return v, nil
}

// Marshal returns the chart values of j rendered with s as JSON.
func Marshal(j *job.Job, s job.Settings) ([]byte, error) {
	b, err := json.Marshal(chart{Job: j, TFGen: s})
	if err != nil {
		return nil, fmt.Errorf("values of job %s: %w", j.Name, err)
	}
	return b, nil
}

// Port returns the port of replica spec s, the framework default when unset.
func Port(f job.Framework, s *job.ReplicaSpec) int32 {
	if s != nil && s.Port != nil {
		return *s.Port
	}
	return f.DefaultPort()
}

// TrainingContainer returns the index of the training container in pod
// spec ps: the container named tensorflow (mxnet), else the first; -1 when
// there are no containers. The templates choose the same way.
func TrainingContainer(f job.Framework, ps *corev1.PodSpec) int {
	for i, c := range ps.Containers {
		if c.Name == f.ContainerName() {
			return i
		}
	}
	if len(ps.Containers) == 0 {
		return -1
	}
	return 0
}

// SidecarReplicas returns the replica types of j, sorted, whose training
// container has no command and so render in sidecar mode.
func SidecarReplicas(j *job.Job) []job.ReplicaType {
	var out []job.ReplicaType
	for _, t := range j.ReplicaTypes() {
		ps := &j.Replicas()[t].Template.Spec
		if i := TrainingContainer(j.Framework(), ps); i >= 0 && len(ps.Containers[i].Command) == 0 {
			out = append(out, t)
		}
	}
	return out
}

// Layout returns the layout pkg/cluster computes replica environments from,
// the one tfsupervisor rebuilds from its --roles flag.
func Layout(j *job.Job, s job.Settings) *cluster.Layout {
	l := &cluster.Layout{
		Job:              j.Name,
		Framework:        string(j.Framework()),
		ClusterDomain:    s.ClusterDomain,
		ExcludeEvaluator: s.ExcludeEvaluator,
		Sparse:           j.EnableDynamicWorker,
	}
	for _, t := range j.ReplicaTypes() {
		spec := j.Replicas()[t]
		l.Roles = append(l.Roles, cluster.Role{Type: t.Lower(), Replicas: spec.Count(), Port: Port(j.Framework(), spec), Label: spec.Label})
	}
	sort.Slice(l.Roles, func(a, b int) bool { return l.Roles[a].Type < l.Roles[b].Type })
	return l
}
