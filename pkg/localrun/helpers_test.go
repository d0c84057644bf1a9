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

	"github.com/tfgen/tfgen/pkg/job"
)

// tfJob returns job demo with specs, defaulted.
func tfJob(specs map[job.ReplicaType]*job.ReplicaSpec) *job.Job {
	j := &job.Job{Name: "demo", TFReplicaSpecs: specs}
	job.SetDefaults(j)
	return j
}

// sh is a replica spec of n replicas running script with sh, with env.
func sh(n int32, policy job.RestartPolicy, script string, env ...corev1.EnvVar) *job.ReplicaSpec {
	return &job.ReplicaSpec{Replicas: &n, RestartPolicy: policy, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: "tensorflow", Image: "busybox", Command: []string{"sh", "-c", script}, Env: env}}}}}
}

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

func dirEnv(dir string) corev1.EnvVar { return corev1.EnvVar{Name: "DIR", Value: dir} }
