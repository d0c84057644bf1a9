//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The test binary re-executed with these variables sets its address-space
// limit and then executes the command they name: a child with a limit of
// its own, however the test itself runs.
const (
	limitEnv = "TFGEN_TEST_RLIMIT_AS"
	execEnv  = "TFGEN_TEST_EXEC" // argv, separated by \x1f (no argument here holds one)
)

func execLimited() {
	limit, argv := os.Getenv(limitEnv), os.Getenv(execEnv)
	if limit == "" {
		return
	}
	n, err := strconv.ParseUint(limit, 10, 64)
	if err == nil {
		err = syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: n, Max: n})
	}
	if err == nil {
		args := strings.Split(argv, "\x1f")
		err = syscall.Exec(args[0], args, os.Environ())
	}
	fmt.Fprintln(os.Stderr, "exec with a limit:", err)
	os.Exit(125)
}

// limited returns tfgen with args, to run with an address space of limit bytes.
func limited(limit uint64, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", limitEnv, limit), execEnv+"="+strings.Join(append([]string{bin}, args...), "\x1f"))
	return cmd
}

// asLimit is what tfgen gets: the Go runtime reserves about 1.7 GB of
// address space at start, so a few hundred megabytes are left for the heap.
// Expanding the bomb below would take over 2 GB.
const asLimit = 2 << 30

// TestAliasBombUnderAddressLimit: a 200 KB document whose 20,000 aliases
// of one 100 KB string expand to 2 GB ends, under a 2 GiB address-space
// limit, in one line on stderr and exit status 1 (before the limit on
// expanded bytes, Go's fatal out-of-memory error with a goroutine dump). A
// job renders under the same limit, so the limit leaves tfgen room to work.
func TestAliasBombUnderAddressLimit(t *testing.T) {
	dir := t.TempDir()
	bomb := filepath.Join(dir, "bomb.yaml")
	doc := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\ndata:\n  a: &a " + strings.Repeat("x", 100_000) + "\nlist:\n" + strings.Repeat("- *a\n", 20_000)
	if err := os.WriteFile(bomb, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	job := filepath.Join(dir, "job.yaml")
	if err := os.WriteFile(job, []byte(jobs(3)), 0o644); err != nil {
		t.Fatal(err)
	}

	ok := limited(asLimit, "render", "-f", job)
	if out, err := ok.CombinedOutput(); err != nil {
		t.Fatalf("a job under the limit: %v\n%.2000s", err, out)
	}

	cmd := limited(asLimit, "render", "-f", bomb, "-f", job)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("exit status %d (%v), want 1; stderr:\n%.2000s", code, err, stderr.String())
	}
	want := bomb + ":1: the document expands to more than 8 MiB, the most tfgen reads in one document\ntfgen: 1 problem; nothing was written\n"
	if stderr.String() != want || stdout.Len() > 0 {
		t.Errorf("stderr:\n%.2000s\nwant:\n%s(and %d bytes on stdout)", stderr.String(), want, stdout.Len())
	}
}

// TestEndlessInput: tfgen render -f /dev/zero stops at the input limit,
// under the same address-space limit.
func TestEndlessInput(t *testing.T) {
	cmd := limited(asLimit, "render", "-f", "/dev/zero")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	want := "/dev/zero: input is larger than 64 MiB, the most tfgen reads from one file or standard input; split it into several files\ntfgen: 1 problem; nothing was written\n"
	if code := cmd.ProcessState.ExitCode(); code != 1 || stderr.String() != want {
		t.Errorf("exit status %d (%v), stderr:\n%s\nwant status 1 and:\n%s", code, err, stderr.String(), want)
	}
}

// maxRSS renders stream and returns tfgen's peak resident memory in bytes.
func maxRSS(t *testing.T, stream string) int64 {
	t.Helper()
	cmd := exec.Command(bin, "render", "-f", "-")
	cmd.Stdin = strings.NewReader(stream)
	var stdout countWriter
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("render: %v\n%s", err, stderr.String())
	}
	if stdout.n == 0 {
		t.Fatal("nothing rendered")
	}
	return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
}

type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// TestStreamMemoryFlat: a stream five times longer takes about the same
// memory. Both streams render more than tfgen keeps in memory before it
// spools to a file (4 MiB); before streaming, each job held about 200 KB
// to the end, so 3,000 jobs took over half a gigabyte more than 600.
func TestStreamMemoryFlat(t *testing.T) {
	small, large := maxRSS(t, jobs(600)), maxRSS(t, jobs(3000))
	t.Logf("peak memory: 600 jobs %d MB, 3,000 jobs %d MB", small>>20, large>>20)
	if large > small+24<<20 {
		t.Errorf("3,000 jobs took %d MB against %d MB for 600: memory grows with the stream", large>>20, small>>20)
	}
}
