package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkRender1000Jobs runs `tfgen render -f DIR` on 1,000 copies of
// the MNIST example in one process and reports the CPU time per job
// (cpu-ns/job): the whole pipeline, from reading files to writing YAML.
func BenchmarkRender1000Jobs(b *testing.B) {
	const jobs = 1000
	example, err := os.ReadFile("../../examples/tfjob-mnist.yaml")
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	for i := range jobs {
		doc := strings.Replace(string(example), "name: mnist\n", fmt.Sprintf("name: mnist-%04d\n", i), 1)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("job-%04d.yaml", i)), []byte(doc), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	defer debug.SetGCPercent(debug.SetGCPercent(400)) // as cmd/tfgen runs
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		cmd := NewRootCmd(Streams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard})
		cmd.SetArgs([]string{"render", "-f", dir})
		if err := cmd.Execute(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N*jobs), "cpu-ns/job")
}

// cpuTime returns the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
