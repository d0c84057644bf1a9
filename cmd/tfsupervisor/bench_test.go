package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The benchmarks report the figures of DESIGN section 7 as custom metrics
// (hack/bench-supervisor.sh prints them as a table). They run the binary
// built by TestMain, standalone; the training process is testdata/stamp,
// which records when it started and when it exited.

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

// stampBin builds testdata/stamp once.
func stampBin(b *testing.B) string {
	p := filepath.Join(filepath.Dir(bin), "stamp")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	build := exec.Command("go", "build", "-o", p, "./testdata/stamp")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if o, err := build.CombinedOutput(); err != nil {
		b.Fatalf("%v\n%s", err, o)
	}
	return p
}

// stamps reads the "START END" lines of a stamp file.
func stamps(b *testing.B, path string) [][2]int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var out [][2]int64
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var s [2]int64
		if _, err := fmt.Sscan(l, &s[0], &s[1]); err != nil {
			b.Fatalf("stamp %q: %v", l, err)
		}
		out = append(out, s)
	}
	return out
}

// startDelay runs cmd (the stamp, directly or supervised) and returns the
// time from exec to the stamp's main, and the whole run's time.
func startDelay(b *testing.B, cmd *exec.Cmd, file string) (toStart, total time.Duration) {
	os.Remove(file)
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatal(err)
	}
	total = time.Since(t0)
	return time.Duration(stamps(b, file)[0][0] - t0.UnixNano()), total
}

// median returns the median of d in milliseconds: robust to the spikes
// of other load on the machine, which a mean is not.
func median(d []time.Duration) float64 {
	slices.Sort(d)
	if len(d) == 0 {
		return 0
	}
	return float64(d[len(d)/2]) / 1e6
}

// BenchmarkStartOverhead compares `tfsupervisor run -- stamp` with
// `stamp`, alternating: the difference of the times to the stamp's main is
// the time the supervisor adds before the child starts; that of the whole
// runs adds the time it takes after the child's exit. Medians.
func BenchmarkStartOverhead(b *testing.B) {
	stamp, file := stampBin(b), filepath.Join(b.TempDir(), "stamps")
	var before, around []time.Duration
	for b.Loop() {
		direct := exec.Command(stamp)
		direct.Env = append(os.Environ(), "STAMP_FILE="+file)
		s1, t1 := startDelay(b, direct, file)
		s2, t2 := startDelay(b, supervisor([]string{"STAMP_FILE=" + file}, "run", "--", stamp), file)
		before, around = append(before, s2-s1), append(around, t2-t1)
	}
	b.ReportMetric(median(before), "ms-before-start")
	b.ReportMetric(median(around), "ms-around")
}

// BenchmarkRestart measures child exit → restarted child with zero
// backoff: the stamp exits and is started again, 200 times, under Always;
// the median gap from one stamp's exit to the next one's main (the child's
// own start, about half a millisecond for a Go program, included).
func BenchmarkRestart(b *testing.B) {
	const cycles = 200
	stamp, file := stampBin(b), filepath.Join(b.TempDir(), "stamps")
	var gaps []time.Duration
	for b.Loop() {
		os.Remove(file)
		// Each run fails (exit 1) and OnFailure restarts it; the last one,
		// past --max-restarts, is the supervisor's exit.
		cmd := supervisor([]string{"STAMP_FILE=" + file, "STAMP_EXIT=1"}, "run", "--restart-policy", "OnFailure",
			"--max-restarts", strconv.Itoa(cycles-1), "--restart-backoff", "0s", "--", stamp)
		if err := cmd.Run(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 {
			b.Fatalf("want exit 1 after the last restart: %v", err)
		}
		s := stamps(b, file)
		if len(s) != cycles {
			b.Fatalf("%d runs, want %d", len(s), cycles)
		}
		for i := 1; i < len(s); i++ {
			gaps = append(gaps, time.Duration(s[i][0]-s[i-1][1]))
		}
	}
	b.ReportMetric(median(gaps), "ms/restart")
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

// BenchmarkOutput measures how fast a training process's output goes to
// the container's log: written directly (the child alone, its stdout the
// file) and through wrap mode's capture (tfsupervisor run copies it from
// a pipe to its own stdout, the same file, keeping the end for the
// replica's record). 64 MiB each run; the median rate of each.
func BenchmarkOutput(b *testing.B) {
	const mib = 64
	script := fmt.Sprintf("head -c %d /dev/zero", mib<<20)
	var direct, captured []float64
	for b.Loop() {
		for _, supervised := range []bool{false, true} {
			out, err := os.OpenFile(filepath.Join(b.TempDir(), "log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				b.Fatal(err)
			}
			cmd := exec.Command("sh", "-c", script)
			if supervised {
				cmd = supervisor(nil, "run", "--", "sh", "-c", script)
			}
			cmd.Stdout = out
			start := time.Now()
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
			secs := time.Since(start).Seconds()
			if fi, err := out.Stat(); err != nil || fi.Size() != mib<<20 {
				b.Fatalf("the log has %d bytes, want %d (%v)", fi.Size(), mib<<20, err)
			}
			out.Close()
			if supervised {
				captured = append(captured, mib/secs)
			} else {
				direct = append(direct, mib/secs)
			}
		}
	}
	slices.Sort(direct)
	slices.Sort(captured)
	b.ReportMetric(direct[len(direct)/2], "MiB/s-direct")
	b.ReportMetric(captured[len(captured)/2], "MiB/s-captured")
}
