package entrypoints

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/internal/testjob"
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
	j := testjob.New("j").
		Replica(job.Chief, 1, testjob.Image("kubeflow/tf-mnist-with-summaries"), testjob.Args("--epochs=1")).
		Replica(job.Worker, 1, testjob.Image("train:v1")).
		Replica(job.PS, 1, testjob.Image("both:v1")).
		Replica(job.Evaluator, 1, testjob.Image("unknown:v1")).
		Job()
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
