package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The benchmarks report the figures of DESIGN section 7 as custom metrics
// (hack/bench-supervisor.sh prints them as a table). They run the stripped
// static binary built by TestMain, standalone.

// BenchmarkBinarySize reports the size of the stripped static binary.
func BenchmarkBinarySize(b *testing.B) {
	out := b.TempDir() + "/tfsupervisor"
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if o, err := build.CombinedOutput(); err != nil {
		b.Fatalf("%v\n%s", err, o)
	}
	fi, err := os.Stat(out)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
	}
	b.ReportMetric(float64(fi.Size())/1e6, "MB")
}

func runTimed(b *testing.B, args ...string) time.Duration {
	cmd := supervisor(nil, args...)
	if args[0] != "run" {
		cmd = exec.Command(args[0], args[1:]...)
	}
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%v: %v", args, err)
	}
	return time.Since(start)
}

// BenchmarkStartOverhead compares `tfsupervisor run -- /bin/true` with
// `/bin/true`, alternating; the difference of the means is the time the
// supervisor adds (start and exit together: an upper bound on the time
// added before the child starts).
func BenchmarkStartOverhead(b *testing.B) {
	var direct, supervised time.Duration
	n := 0
	for b.Loop() {
		direct += runTimed(b, "/bin/true")
		supervised += runTimed(b, "run", "--", "/bin/true")
		n++
	}
	b.ReportMetric(float64(supervised-direct)/float64(n)/1e6, "ms-added")
}

// BenchmarkRestart measures a restart cycle with zero backoff: the child
// (/bin/true) exits and is started again, 200 times, under Always. The
// time per cycle less a direct run of /bin/true is the supervisor's part
// of child exit → restarted child.
func BenchmarkRestart(b *testing.B) {
	const cycles = 200
	var direct, supervised time.Duration
	n := 0
	for b.Loop() {
		for range cycles {
			direct += runTimed(b, "/bin/true")
		}
		supervised += runTimed(b, "run", "--restart-policy", "Always", "--max-restarts", strconv.Itoa(cycles-1), "--restart-backoff", "0s", "--", "/bin/true")
		n++
	}
	b.ReportMetric(float64(supervised)/float64(n*cycles)/1e6, "ms/cycle")
	b.ReportMetric(float64(supervised-direct)/float64(n*cycles)/1e6, "ms-added/restart")
}

// BenchmarkMemory reads the resident memory of a supervisor that
// supervises a running child (VmRSS now, VmHWM the peak).
func BenchmarkMemory(b *testing.B) {
	var rss, hwm float64
	for b.Loop() {
		fifo := b.TempDir() + "/ready"
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			b.Fatal(err)
		}
		cmd := supervisor([]string{"READY=" + fifo}, "run", "--", "sh", "-c", `echo ready > "$READY"; exec sleep 600`)
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		f, err := os.Open(fifo)
		if err != nil {
			b.Fatal(err)
		}
		bufio.NewReader(f).ReadString('\n')
		f.Close()
		r, h := memory(b, cmd.Process.Pid)
		rss, hwm = max(rss, r), max(hwm, h)
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}
	b.ReportMetric(rss, "MB-rss")
	b.ReportMetric(hwm, "MB-hwm")
}

// memory returns VmRSS and VmHWM of pid in MB.
func memory(b *testing.B, pid int) (rss, hwm float64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb / 1024
		case "VmHWM:":
			hwm = kb / 1024
		}
	}
	return rss, hwm
}
