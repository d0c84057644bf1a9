//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/internal/testjob"
)

// jobs returns n small TFJobs as one YAML stream.
func jobs(n int) string {
	list := make([]*testjob.Builder, n)
	for i := range list {
		list[i] = testjob.New(fmt.Sprintf("job-%d", i)).Replica("Worker", 2, testjob.Command("python", "train.py"))
	}
	return testjob.Stream(list...)
}

// TestRenderSignals: a signal during a render stops it, writes nothing
// (to stdout, or to -o: neither the directory nor anything beside it
// changes) and exits 128+signal. The render is provably in progress: tfgen
// has read from a pipe far more than the pipe holds, and the pipe stays
// open, so the input has no end yet.
func TestRenderSignals(t *testing.T) {
	for _, tc := range []struct {
		name string
		sig  syscall.Signal
		code int
		out  bool
	}{
		{"SIGINT to stdout", syscall.SIGINT, 130, false},
		{"SIGTERM to stdout", syscall.SIGTERM, 143, false},
		{"SIGINT with -o", syscall.SIGINT, 130, true},
		{"SIGTERM with -o", syscall.SIGTERM, 143, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "rendered")
			args := []string{"render", "-f", "-"}
			if tc.out {
				// tfgen's own earlier output, which the render would replace.
				seed := exec.Command(bin, "render", "-f", "-", "-o", dir)
				seed.Stdin = strings.NewReader(jobs(1))
				if out, err := seed.CombinedOutput(); err != nil {
					t.Fatalf("first render: %v\n%s", err, out)
				}
				args = append(args, "-o", dir)
			}
			before := tree(t, parent)

			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			cmd := exec.Command(bin, args...)
			cmd.Stdin = r
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			r.Close()
			// 1 MB through a 64 KB pipe: tfgen has read and rendered
			// most of it when the write returns.
			if _, err := w.WriteString(jobs(2000)); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != tc.code {
				t.Fatalf("exit status %d (%v), want %d; stderr:\n%s", code, err, tc.code, stderr.String())
			}
			if stdout.Len() > 0 {
				t.Errorf("wrote %d bytes to stdout", stdout.Len())
			}
			want := fmt.Sprintf("tfgen: interrupted by %s; nothing was written\n", map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[tc.sig])
			if stderr.String() != want {
				t.Errorf("stderr %q, want %q", stderr.String(), want)
			}
			if diff := cmp.Diff(before, tree(t, parent)); diff != "" {
				t.Errorf("files changed (-before +after):\n%s", diff)
			}
		})
	}
}

// TestSignalWhileStreaming: once the output streams into a pipe that is
// not read, SIGINT still ends tfgen at once, with 130 and a line saying
// the output stops part way. The pipe (64 KiB) cannot take the megabytes
// of 2,000 jobs: tfgen is writing, or blocked writing, when the signal
// comes, for its first bytes have been read.
func TestSignalWhileStreaming(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(bin, "render", "-f", "-")
	cmd.Stdin = strings.NewReader(jobs(2000))
	cmd.Stdout = w
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if _, err := r.Read(make([]byte, 1)); err != nil {
		t.Fatalf("no output: %v", err)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("tfgen went on after SIGINT while its output was not read; stderr:\n%s", stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit status %d, want 130; stderr:\n%s", code, stderr.String())
	}
	if want := "tfgen: interrupted by SIGINT; the output on stdout stops part way\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}

// tree returns every file below dir with its contents.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			files[rel+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		files[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
