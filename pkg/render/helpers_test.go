package render

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/tfgen/tfgen/internal/testjob"
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
	return job.Settings{SupervisorImage: "ghcr.io/tfgen/tfsupervisor:test"}
}

// newest is the cluster most tests render for: Kubernetes 1.37.
var newest = Capabilities{KubeVersion: "1.37"}

// train is the training container's image and command (none: sidecar
// mode).
func train(command ...string) testjob.Option {
	return testjob.Options(testjob.Image("tensorflow/tensorflow:2.15.0"), testjob.Command(command...))
}

// never is restartPolicy Never.
var never = testjob.RestartPolicy(job.RestartNever)

// mnist is a typical job: chief, two parameter servers, three workers.
func mnist() *job.Job {
	return testjob.New("mnist").Namespace("ml").
		Replica(job.Chief, 1, testjob.RestartPolicy(job.RestartExitCode), train("python", "/opt/mnist.py")).
		Replica(job.PS, 2, testjob.RestartPolicy(job.RestartAlways), train("python", "/opt/mnist.py")).
		Replica(job.Worker, 3, testjob.RestartPolicy(job.RestartOnFailure), train("python", "/opt/mnist.py")).
		CleanPodPolicy(job.CleanRunning).Edit(func(j *job.Job) { j.RunPolicy.BackoffLimit = ptr(int32(3)) }).
		Job()
}

// gpu adds a GPU limit to the workers' training container.
func gpu(j *job.Job) *job.Job {
	c := &j.TFReplicaSpecs[job.Worker].Template.Spec.Containers[0]
	c.Resources.Limits = corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}
	return j
}
