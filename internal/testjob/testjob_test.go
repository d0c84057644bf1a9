package testjob_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/dialect"
	"github.com/tfgen/tfgen/pkg/input"
	"github.com/tfgen/tfgen/pkg/job"
)

func ptr[T any](v T) *T { return &v }

// TestYAMLIsTheJob: the YAML decodes, strictly and without warnings, to
// the job the builder holds.
func TestYAMLIsTheJob(t *testing.T) {
	for name, b := range map[string]*testjob.Builder{
		"tensorflow": testjob.New("mnist").Namespace("ml").Label("team", "a").Annotation("note", "n").
			Replica(job.Chief, 1, testjob.RestartPolicy(job.RestartExitCode), testjob.Command("python", "t.py"), testjob.Env("DIR", "/d")).
			Replica(job.Worker, 3, testjob.RestartPolicy(job.RestartOnFailure), testjob.Image("busybox"), testjob.Args("-v"),
				testjob.Pod(func(p *corev1.PodSpec) { p.TerminationGracePeriodSeconds = ptr[int64](5) })).
			CleanPodPolicy(job.CleanAll).DynamicWorkers().
			Edit(func(j *job.Job) {
				j.RunPolicy.BackoffLimit = ptr[int32](2)
				j.RunPolicy.SchedulingPolicy = &job.SchedulingPolicy{MinAvailable: ptr[int32](4), Queue: "q"}
				j.SuccessPolicy, j.SuccessWorkers = job.SuccessAllWorkers, ptr(intstr.FromString("50%"))
				j.MinInstances, j.MaxInstances = ptr[int32](1), ptr[int32](3)
			}),
		"mxnet": testjob.NewMX("mx").
			Replica(job.Scheduler, 1, testjob.RestartPolicy(job.RestartNever)).
			Replica(job.Worker, 2, testjob.RestartPolicy(job.RestartNever), testjob.Command("python")).
			CleanPodPolicy(job.CleanRunning).Edit(func(j *job.Job) { j.JobMode = "dist" }),
	} {
		t.Run(name, func(t *testing.T) {
			res, err := dialect.Decode(input.Document{File: "job.yaml", Line: 1, Raw: b.YAML()}, dialect.Options{Strict: true})
			if err != nil || len(res.Warnings) > 0 {
				t.Fatalf("decode: %v, warnings %q\n%s", err, res.Warnings, b.YAML())
			}
			if diff := cmp.Diff(b.Job(), res.Job, cmpopts.IgnoreFields(job.Job{}, "Source"),
				cmpopts.IgnoreFields(job.ReplicaSpec{}, "Port")); diff != "" {
				t.Errorf("decoded job (-built +decoded):\n%s", diff)
			}
		})
	}
}

// TestTrainingContainer: the container options change the container
// named for the framework, whichever comes first.
func TestTrainingContainer(t *testing.T) {
	side := func(p *corev1.PodSpec) {
		p.Containers = append([]corev1.Container{{Name: "sidecar", Image: "s"}}, p.Containers...)
	}
	j := testjob.New("j").Replica(job.PS, 2, testjob.Pod(side), testjob.Image("t"), testjob.Command("python")).Job()
	want := []corev1.Container{{Name: "sidecar", Image: "s"}, {Name: "tensorflow", Image: "t", Command: []string{"python"}}}
	if diff := cmp.Diff(want, j.TFReplicaSpecs[job.PS].Template.Spec.Containers); diff != "" {
		t.Errorf("containers (-want +got):\n%s", diff)
	}
	mx := testjob.NewMX("m").Replica(job.Server, 1).Job()
	if c := mx.MXReplicaSpecs[job.Server].Template.Spec.Containers; len(c) != 1 || c[0].Name != "mxnet" || c[0].Image != testjob.DefaultImage {
		t.Errorf("MXNet containers %+v", c)
	}
}

// TestFrom: From adds to a job built before, of its framework, in place.
func TestFrom(t *testing.T) {
	train := testjob.Options(testjob.Image("t"), testjob.Command("python"))
	j := testjob.New("j").Replica(job.Chief, 1, train).Job()
	if testjob.From(j).Replica(job.Evaluator, 1, train).Job() != j || len(j.TFReplicaSpecs) != 2 {
		t.Errorf("From made another job or lost a replica: %+v", j.TFReplicaSpecs)
	}
	c := j.TFReplicaSpecs[job.Evaluator].Template.Spec.Containers[0]
	if c.Image != "t" || len(c.Command) != 1 {
		t.Errorf("evaluator's container %+v: Options did not apply both", c)
	}
	mx := testjob.From(testjob.NewMX("m").Job()).Replica(job.Server, 1).Job()
	if len(mx.TFReplicaSpecs) != 0 || mx.MXReplicaSpecs[job.Server].Template.Spec.Containers[0].Name != "mxnet" {
		t.Errorf("From of an MXJob: %+v", mx)
	}
}

// TestStream: jobs in one stream are read back one document each.
func TestStream(t *testing.T) {
	s := testjob.Stream(testjob.New("a").Replica(job.Worker, 1), testjob.New("b").Replica(job.Worker, 1))
	docs, err := input.Read([]string{"-"}, strings.NewReader(s))
	if err != nil || len(docs) != 2 {
		t.Fatalf("%d documents, %v:\n%s", len(docs), err, s)
	}
}

// TestOnlyTests: no command's build imports the package.
func TestOnlyTests(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/tfgen/tfgen/cmd/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "internal/testjob") {
		t.Error("a command imports internal/testjob")
	}
}
