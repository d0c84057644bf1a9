package entrypoints

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/tfgen/tfgen/pkg/job"
)

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"tensorflow/tensorflow":                   "tensorflow/tensorflow:latest",
		"docker.io/library/python:3.12":           "python:3.12",
		"python":                                  "python:latest",
		"localhost:5000/team/train":               "localhost:5000/team/train:latest",
		"gcr.io/p/img:v1":                         "gcr.io/p/img:v1",
		"ghcr.io/x/y@sha256:0123456789abcdef0123": "ghcr.io/x/y@sha256:0123456789abcdef0123",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestApply(t *testing.T) {
	m, err := Parse([]byte(`
docker.io/kubeflow/tf-mnist-with-summaries:latest: {entrypoint: ["python", "/var/tf_mnist/mnist_with_summaries.py"]}
train:v1: {cmd: ["python", "train.py"]}
both:v1: {entrypoint: ["/bin/run"], cmd: ["--default"]}
`))
	if err != nil {
		t.Fatal(err)
	}
	c := func(image string, args ...string) corev1.Container {
		return corev1.Container{Name: "tensorflow", Image: image, Args: args}
	}
	j := &job.Job{Name: "j", TFReplicaSpecs: map[job.ReplicaType]*job.ReplicaSpec{
		job.Chief:     {Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{c("kubeflow/tf-mnist-with-summaries", "--epochs=1")}}}},
		job.Worker:    {Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{c("train:v1")}}}},
		job.PS:        {Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{c("both:v1")}}}},
		job.Evaluator: {Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{c("unknown:v1")}}}},
	}}
	got := Apply(j, m)
	if diff := cmp.Diff([]job.ReplicaType{job.Chief, job.PS, job.Worker}, got); diff != "" {
		t.Errorf("changed (-want +got):\n%s", diff)
	}
	for typ, want := range map[job.ReplicaType][2][]string{
		job.Chief:     {{"python", "/var/tf_mnist/mnist_with_summaries.py"}, {"--epochs=1"}},
		job.Worker:    {{"python", "train.py"}, nil},
		job.PS:        {{"/bin/run"}, {"--default"}},
		job.Evaluator: {nil, nil},
	} {
		ct := j.TFReplicaSpecs[typ].Template.Spec.Containers[0]
		if diff := cmp.Diff(want, [2][]string{ct.Command, ct.Args}); diff != "" {
			t.Errorf("%s command, args (-want +got):\n%s", typ, diff)
		}
	}
	if _, err := Parse([]byte("img:v1: {}")); err == nil {
		t.Error("an entry with neither entrypoint nor cmd: want an error")
	}
}
