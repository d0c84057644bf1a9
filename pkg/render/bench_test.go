package render

import (
	"syscall"
	"testing"
	"time"

	"github.com/tfgen/tfgen/pkg/job"
)

// BenchmarkRender renders a typical job (chief, 2 PS, 3 workers).
func BenchmarkRender(b *testing.B) {
	benchmarkRender(b, mnist())
}

// BenchmarkRender10000Workers renders the same job with 10,000 workers; in
// wrap mode its objects are the same size.
func BenchmarkRender10000Workers(b *testing.B) {
	j := mnist()
	j.TFReplicaSpecs[job.Worker].Replicas = ptr(int32(10000))
	benchmarkRender(b, j)
}

// BenchmarkRenderGPU renders the typical job with accelerators configured.
func BenchmarkRenderGPU(b *testing.B) {
	s := settings()
	s.Accelerators = map[string]job.Accelerator{"nvidia.com/gpu": {
		Volumes: []job.AcceleratorVolume{{Name: "nvidia-libraries", HostPath: "/home/kubernetes/bin/nvidia/lib64", MountPath: "/usr/local/nvidia/lib64"}},
	}}
	r := newRenderer(b)
	j := gpu(mnist())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Render(j, s, newest); err != nil {
			b.Fatal(err)
		}
	}
}

func benchmarkRender(b *testing.B, j *job.Job) {
	r := newRenderer(b)
	s := settings()
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		if _, err := r.Render(j, s, newest); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// cpuTime returns the CPU time (user and system) the process has used:
// unlike ns/op, it does not grow when other processes share the machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
