package render

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/templates"
)

func ptr[T any](v T) *T { return &v }

func newRenderer(t testing.TB) *Renderer {
	t.Helper()
	r, err := New(templates.FS)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func settings() job.Settings {
	return job.Settings{SupervisorImage: "ghcr.io/tfgen/tfsupervisor:test", KubeVersion: "1.37"}
}

func container(name string, command ...string) corev1.Container {
	return corev1.Container{Name: name, Image: "tensorflow/tensorflow:2.15.0", Command: command}
}

func replica(n int32, policy job.RestartPolicy, c ...corev1.Container) *job.ReplicaSpec {
	return &job.ReplicaSpec{Replicas: ptr(n), RestartPolicy: policy, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: c}}}
}

// mnist is a typical job: chief, two parameter servers, three workers.
func mnist() *job.Job {
	return &job.Job{
		Name: "mnist", Namespace: "ml",
		TFReplicaSpecs: map[job.ReplicaType]*job.ReplicaSpec{
			job.Chief:  replica(1, job.RestartExitCode, container("tensorflow", "python", "/opt/mnist.py")),
			job.PS:     replica(2, job.RestartAlways, container("tensorflow", "python", "/opt/mnist.py")),
			job.Worker: replica(3, job.RestartOnFailure, container("tensorflow", "python", "/opt/mnist.py")),
		},
		RunPolicy: job.RunPolicy{CleanPodPolicy: job.CleanRunning, BackoffLimit: ptr(int32(3))},
	}
}

// gpu adds a GPU limit to the workers' training container.
func gpu(j *job.Job) *job.Job {
	c := &j.TFReplicaSpecs[job.Worker].Template.Spec.Containers[0]
	c.Resources.Limits = corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}
	return j
}
