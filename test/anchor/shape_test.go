package anchor

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/job"
)

// shape is a job the bench runs through every system: what each worker
// runs and asks for, and the nodes it needs.
type shape struct {
	// name is the shape's name in TFGEN_ANCHOR_SHAPES and in the figures.
	name string
	// script, when set, is the worker's shell script given its index (a
	// shell expression), which prints trainedMarker when its training has
	// ended; empty, every worker runs `sleep 3`.
	script func(index string) string
	// cpu is what the training container requests; empty, nothing.
	cpu string
	// nodeCPU is each node's CPU capacity: room for podsPerNode pods.
	nodeCPU string
}

var (
	// same is the job of the first table: every worker `sleep 3`,
	// requesting nothing.
	same = shape{name: "same", nodeCPU: "100"}
	// early is half the workers finishing early: `sleep 3` on even
	// ordinals, `sleep 20` on odd ones, each requesting 1 CPU, so that a
	// replica that finished early holds a CPU while the others train
	// unless its system gives it back.
	early = shape{name: "early", cpu: "1", nodeCPU: "200", script: func(index string) string {
		return fmt.Sprintf(`i=%s; case $i in *[13579]) s=20;; *) s=3;; esac; sleep $s; date +'%s %%s.%%N'`, index, trainedMarker)
	}}
	shapes = []shape{same, early}
)

// shapeNamed finds a shape by name.
func shapeNamed(name string) (shape, error) {
	var names []string
	for _, s := range shapes {
		if s.name == name {
			return s, nil
		}
		names = append(names, s.name)
	}
	return shape{}, fmt.Errorf("unknown job shape %q (%s)", name, strings.Join(names, ", "))
}

// The worker's index in each system's pods: a TFJob's pod, Kubeflow's or
// tfgen's, is named J-worker-INDEX (and the container's hostname is the
// pod's name); an Indexed Job's pod gets JOB_COMPLETION_INDEX from the Job
// controller.
const (
	tfJobIndex  = "${HOSTNAME##*-}"
	jobSetIndex = "$JOB_COMPLETION_INDEX"
)

// command is the training container's command, its worker index being
// the shell expression index.
func (s shape) command(index string) []string {
	if s.script == nil {
		return []string{"sleep", "3"}
	}
	return []string{"sh", "-c", s.script(index)}
}

// resources are the training container's requests.
func (s shape) resources() corev1.ResourceRequirements {
	if s.cpu == "" {
		return corev1.ResourceRequirements{}
	}
	return corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(s.cpu)}}
}

// tfJob is the TFJob Kubeflow's operator and tfgen run: n workers, every
// one must succeed (successPolicy AllWorkers: without a chief, the
// default policy would end the job when worker 0 succeeds, after 3 s in
// the early shape), cleanPodPolicy Running, restartPolicy Never.
func (s shape) tfJob(n int) []byte {
	opts := []testjob.Option{testjob.RestartPolicy(job.RestartNever), testjob.Image(shellImage), testjob.Command(s.command(tfJobIndex)...)}
	if s.cpu != "" {
		opts = append(opts, testjob.Container(func(c *corev1.Container) { c.Resources = s.resources() }))
	}
	return testjob.New(jobName).Namespace(namespace).CleanPodPolicy(job.CleanRunning).
		Edit(func(j *job.Job) { j.SuccessPolicy = job.SuccessAllWorkers }).
		Replica(job.Worker, int32(n), opts...).
		YAML()
}

// TestEarlyScript runs the early shape's script in each system's way of
// giving the index, with a sleep that only says how long it was asked
// to: odd workers 20 s, even ones 3 s, then the marker with the time.
func TestEarlyScript(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "sleep"), []byte("#!/bin/sh\necho slept $1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		index, env string
		want       string
	}{
		{tfJobIndex, "HOSTNAME=anchor-worker-0", "slept 3"},
		{tfJobIndex, "HOSTNAME=anchor-worker-17", "slept 20"},
		{tfJobIndex, "HOSTNAME=anchor-worker-998", "slept 3"},
		{jobSetIndex, "JOB_COMPLETION_INDEX=999", "slept 20"},
		{jobSetIndex, "JOB_COMPLETION_INDEX=4", "slept 3"},
	} {
		argv := early.command(tc.index)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = []string{"PATH=" + bin + ":" + os.Getenv("PATH"), tc.env}
		before := time.Now()
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", tc.env, err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != 2 || lines[0] != tc.want {
			t.Fatalf("%s: output %q, want %q and the marker", tc.env, out, tc.want)
		}
		path := filepath.Join(t.TempDir(), "tensorflow.log")
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		ends, err := markers(path)
		if err != nil || len(ends) != 1 || ends[0].Before(before.Truncate(time.Millisecond)) || ends[0].After(time.Now()) {
			t.Errorf("%s: marker %q: %v, %v; want one time between the start and now", tc.env, lines[1], ends, err)
		}
	}
}
