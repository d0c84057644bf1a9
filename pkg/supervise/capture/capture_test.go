package capture_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
	"github.com/tfgen/tfgen/pkg/supervise/capture"
	"github.com/tfgen/tfgen/pkg/supervise/proc"
)

// run runs script under the runner with o's streams and returns the tail.
func run(t *testing.T, o *capture.Output, script string) string {
	t.Helper()
	so, se, err := o.Streams()
	if err != nil {
		t.Fatal(err)
	}
	p, err := proc.NewRunner(t.Logf).Start(supervise.Command{Args: []string{"sh", "-c", script}, Stdout: so, Stderr: se})
	so.Close()
	se.Close()
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	return o.Tail()
}

// TestCapture: the process's stdout and stderr go on to the supervisor's,
// each whole, and the end of both is kept, including a last line with no
// newline, once the process has exited.
func TestCapture(t *testing.T) {
	// Each stream has one copy writing to it, done once Tail returns.
	var out, errs bytes.Buffer
	o := &capture.Output{Stdout: &out, Stderr: &errs}
	tail := run(t, o, `echo one; echo two >&2; printf three`)
	if out.String() != "one\nthree" || errs.String() != "two\n" {
		t.Errorf("passed on stdout %q, stderr %q", out.String(), errs.String())
	}
	for _, want := range []string{"one\n", "two\n", "three"} {
		if !strings.Contains(tail, want) {
			t.Errorf("tail %q lacks %q", tail, want)
		}
	}
	// The next run keeps its own output only.
	if tail := run(t, o, `echo four`); tail != "four\n" {
		t.Errorf("second run's tail %q, want %q", tail, "four\n")
	}
}

// TestCaptureKeepsTheEnd: of much output, the last MaxLogTail bytes are
// kept, cut at a line.
func TestCaptureKeepsTheEnd(t *testing.T) {
	o := &capture.Output{}
	tail := run(t, o, `i=0; while [ $i -lt 2000 ]; do echo "line $i"; i=$((i+1)); done`)
	if len(tail) > record.MaxLogTail || !strings.HasPrefix(tail, "line ") || !strings.HasSuffix(tail, "line 1999\n") {
		t.Errorf("tail of %d bytes: %q...%q", len(tail), tail[:min(len(tail), 20)], tail[max(0, len(tail)-20):])
	}
}

// TestCaptureFailingWriter: a stdout that fails (the container's log
// gone) does not stop the process or the tail.
func TestCaptureFailingWriter(t *testing.T) {
	o := &capture.Output{Stdout: failing{}, Stderr: failing{}}
	if tail := run(t, o, `echo a; echo b; exit 3`); tail != "a\nb\n" {
		t.Errorf("tail %q", tail)
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, fmt.Errorf("broken") }
