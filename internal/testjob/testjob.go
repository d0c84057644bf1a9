package testjob

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/tfgen/tfgen/pkg/job"
)

// DefaultImage is the training container's image unless Image says otherwise.
const DefaultImage = "tf:1"

// Builder builds one job; each method changes it and returns the builder.
type Builder struct {
	j *job.Job
}

// New starts TFJob name.
func New(name string) *Builder {
	return &Builder{j: &job.Job{Name: name, TFReplicaSpecs: map[job.ReplicaType]*job.ReplicaSpec{}}}
}

// NewMX starts MXJob name.
func NewMX(name string) *Builder {
	return &Builder{j: &job.Job{Name: name, MXReplicaSpecs: map[job.ReplicaType]*job.ReplicaSpec{}}}
}

// From goes on building j (a TFJob unless it has MXNet replicas), in place.
func From(j *job.Job) *Builder {
	if j.TFReplicaSpecs == nil && j.MXReplicaSpecs == nil {
		j.TFReplicaSpecs = map[job.ReplicaType]*job.ReplicaSpec{}
	}
	return &Builder{j: j}
}

func (b *Builder) framework() job.Framework {
	if b.j.MXReplicaSpecs != nil {
		return job.MXNet
	}
	return job.TensorFlow
}

// Replica adds n replicas of type t: one container, named for the
// framework (tensorflow or mxnet), of image DefaultImage and no command, as
// opts change it.
func (b *Builder) Replica(t job.ReplicaType, n int32, opts ...Option) *Builder {
	s := &job.ReplicaSpec{Replicas: &n, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: string(b.framework()), Image: DefaultImage}}}}}
	for _, o := range opts {
		o(s)
	}
	if b.framework() == job.MXNet {
		b.j.MXReplicaSpecs[t] = s
	} else {
		b.j.TFReplicaSpecs[t] = s
	}
	return b
}

// Namespace sets the job's namespace.
func (b *Builder) Namespace(ns string) *Builder {
	b.j.Namespace = ns
	return b
}

// Label sets label k of the job.
func (b *Builder) Label(k, v string) *Builder {
	if b.j.Labels == nil {
		b.j.Labels = map[string]string{}
	}
	b.j.Labels[k] = v
	return b
}

// Annotation sets annotation k of the job.
func (b *Builder) Annotation(k, v string) *Builder {
	if b.j.Annotations == nil {
		b.j.Annotations = map[string]string{}
	}
	b.j.Annotations[k] = v
	return b
}

// CleanPodPolicy sets runPolicy.cleanPodPolicy.
func (b *Builder) CleanPodPolicy(p job.CleanPodPolicy) *Builder {
	b.j.RunPolicy.CleanPodPolicy = p
	return b
}

// DynamicWorkers sets enableDynamicWorker.
func (b *Builder) DynamicWorkers() *Builder {
	b.j.EnableDynamicWorker = true
	return b
}

// Edit changes anything else of the job (the run policy, the success
// policy, DRAGON's bounds...).
func (b *Builder) Edit(edit func(*job.Job)) *Builder {
	edit(b.j)
	return b
}

// Job returns the job, not a copy, as pkg/dialect would decode its YAML
// before defaults.
func (b *Builder) Job() *job.Job { return b.j }

// Defaulted applies job.SetDefaults to the job and returns it.
func (b *Builder) Defaulted() *job.Job {
	job.SetDefaults(b.j)
	return b.j
}
