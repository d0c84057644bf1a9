//go:build unix

package localrun

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tfgen/tfgen/internal/testjob"
)

// ports are fixed ports for plans whose processes never listen.
func ports(n int) ([]int, error) {
	p := make([]int, n)
	for i := range p {
		p[i] = 40000 + i
	}
	return p, nil
}

// fifos makes named pipes in a new directory and returns the directory.
// A process writing to one blocks until the test opens it: that is how the
// tests know a replica has got somewhere, without sleeping.
func fifos(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		if err := syscall.Mkfifo(filepath.Join(dir, n), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// await reads one line from the named pipe dir/name.
func await(t *testing.T, dir, name string) string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	return strings.TrimSpace(line)
}

// lines is an Out that keeps what it is given and announces each line
// containing match on seen.
type lines struct {
	mu    sync.Mutex
	b     strings.Builder
	match string
	seen  chan string
}

func newLines(match string) *lines { return &lines{match: match, seen: make(chan string, 100)} }

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Write(p)
	if l.match != "" && strings.Contains(string(p), l.match) {
		l.seen <- string(p)
	}
	return len(p), nil
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// dirEnv sets DIR to dir in the training container's env.
func dirEnv(dir string) testjob.Option { return testjob.Env("DIR", dir) }

// fieldEnv adds variable name, from the pod's field at path, to the
// training container's env.
func fieldEnv(name, path string) testjob.Option {
	return testjob.Container(func(c *corev1.Container) {
		c.Env = append(c.Env, corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}})
	})
}
