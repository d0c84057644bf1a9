package harness

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Result is what a command printed and how it ended.
type Result struct {
	Stdout, Stderr string
	Err            error
}

// Command is a binary the tests run.
type Command struct {
	Path string
	// Dir is the directory it runs in; "" is the test's.
	Dir string
	// Env is added to the test's environment.
	Env []string
}

// Run runs the command with args and stdin on its standard input (nil is
// none).
func (c Command) Run(stdin []byte, args ...string) Result {
	cmd := exec.Command(c.Path, args...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), c.Env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return Result{Stdout: out.String(), Stderr: errOut.String(), Err: err}
}

// Must runs the command and returns its standard output; t fails with its
// standard error if it fails.
func (c Command) Must(t testing.TB, stdin []byte, args ...string) []byte {
	t.Helper()
	r := c.Run(stdin, args...)
	if r.Err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(c.Path), strings.Join(args, " "), r.Err, r.Stderr)
	}
	return []byte(r.Stdout)
}

// Kubectl is a kubectl binary, run as the user of the kubeconfig each call
// names.
type Kubectl struct {
	Path string
	// CacheDir holds its discovery and HTTP caches (--cache-dir).
	CacheDir string
}

// Run runs kubectl as kubeconfig's user with stdin (nil is none); kubectl
// diff uses the plain diff(1).
func (k Kubectl) Run(kubeconfig string, stdin []byte, args ...string) Result {
	cmd := Command{Path: k.Path, Env: []string{"KUBECTL_EXTERNAL_DIFF="}}
	return cmd.Run(stdin, append([]string{"--kubeconfig", kubeconfig, "--cache-dir", k.CacheDir}, args...)...)
}

// Must runs kubectl and fails t, showing both outputs, if it fails.
func (k Kubectl) Must(t testing.TB, kubeconfig string, stdin []byte, args ...string) Result {
	t.Helper()
	r := k.Run(kubeconfig, stdin, args...)
	if r.Err != nil {
		t.Fatalf("kubectl %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Err, r.Stdout, r.Stderr)
	}
	return r
}
