package testjob

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/tfgen/tfgen/pkg/dialect/kubeflow"
	"github.com/tfgen/tfgen/pkg/job"
)

// YAML returns the job as a kubeflow.org/v1 TFJob or MXJob. It panics on
// a field that dialect has no place for (tensorboard, scheduler,
// successReplica, a replica's port, maxRestarts or retryableExitCodes).
func (b *Builder) YAML() []byte {
	j := b.j
	if j.TensorBoard != nil || j.Scheduler != nil || j.SuccessReplica != nil {
		panic("testjob: kubeflow.org/v1 has no tensorboard, scheduler or successReplica")
	}
	meta := metav1.ObjectMeta{Name: j.Name, Namespace: j.Namespace, Labels: j.Labels, Annotations: j.Annotations}
	typ := metav1.TypeMeta{APIVersion: "kubeflow.org/v1", Kind: "TFJob"}
	var doc any
	if j.MXReplicaSpecs != nil {
		typ.Kind = "MXJob"
		spec := kubeflow.MXJobSpec{RunPolicy: runPolicy(j.RunPolicy), SuccessPolicy: optional(string(j.SuccessPolicy)),
			JobMode: mxJobMode(j.JobMode), MXReplicaSpecs: map[string]*kubeflow.MXReplicaSpec{}}
		for t, s := range j.MXReplicaSpecs {
			spec.MXReplicaSpecs[string(t)] = &kubeflow.MXReplicaSpec{ReplicaSpec: *replica(t, s), Label: s.Label}
		}
		doc = kubeflow.MXJob{TypeMeta: typ, ObjectMeta: meta, Spec: spec}
	} else {
		spec := kubeflow.TFJobSpec{RunPolicy: runPolicy(j.RunPolicy), SuccessPolicy: optional(string(j.SuccessPolicy)),
			SuccessWorkers: j.SuccessWorkers, MinInstances: j.MinInstances, MaxInstances: j.MaxInstances,
			TFReplicaSpecs: map[string]*kubeflow.ReplicaSpec{}}
		if j.EnableDynamicWorker {
			spec.EnableDynamicWorker = &j.EnableDynamicWorker
		}
		for t, s := range j.TFReplicaSpecs {
			spec.TFReplicaSpecs[string(t)] = replica(t, s)
		}
		doc = kubeflow.TFJob{TypeMeta: typ, ObjectMeta: meta, Spec: spec}
	}
	out, err := yaml.Marshal(doc)
	if err != nil {
		panic(fmt.Sprintf("testjob: %v", err))
	}
	return out
}

// String returns the YAML.
func (b *Builder) String() string { return string(b.YAML()) }

// Stream returns jobs as one YAML stream.
func Stream(jobs ...*Builder) string {
	docs := make([]string, len(jobs))
	for i, j := range jobs {
		docs[i] = j.String()
	}
	return strings.Join(docs, "---\n")
}

func replica(t job.ReplicaType, s *job.ReplicaSpec) *kubeflow.ReplicaSpec {
	if s.Port != nil || s.MaxRestarts != nil || s.RetryableExitCodes != nil {
		panic(fmt.Sprintf("testjob: kubeflow.org/v1 has no port, maxRestarts or retryableExitCodes (replica type %s)", t))
	}
	return &kubeflow.ReplicaSpec{Replicas: s.Replicas, RestartPolicy: string(s.RestartPolicy), Template: s.Template}
}

// runPolicy is p as spec.runPolicy, nil when p is empty.
func runPolicy(p job.RunPolicy) *kubeflow.RunPolicy {
	out := &kubeflow.RunPolicy{CleanPodPolicy: optional(string(p.CleanPodPolicy)), TTLSecondsAfterFinished: p.TTLSecondsAfterFinished,
		ActiveDeadlineSeconds: p.ActiveDeadlineSeconds, BackoffLimit: p.BackoffLimit, Suspend: p.Suspend, ManagedBy: p.ManagedBy}
	if s := p.SchedulingPolicy; s != nil {
		out.SchedulingPolicy = &kubeflow.SchedulingPolicy{MinAvailable: s.MinAvailable, Queue: s.Queue, MinResources: s.MinResources,
			PriorityClass: s.PriorityClass, ScheduleTimeoutSeconds: s.ScheduleTimeoutSeconds}
	}
	if *out == (kubeflow.RunPolicy{}) {
		return nil
	}
	return out
}

// mxJobMode is canonical mode m as MXJob's jobMode: MXTrain for a dist or
// local job, MXTune for MXTune, nil when m is empty.
func mxJobMode(m string) *string {
	if m == "dist" || m == "local" {
		m = "MXTrain"
	}
	return optional(m)
}

// optional is a pointer to s, nil when s is empty.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
