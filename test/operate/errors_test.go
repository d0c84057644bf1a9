package operate

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// jobCommands are the commands on one job, with what they need besides.
var jobCommands = [][]string{
	{"status", "nope"}, {"status", "nope", "--watch"}, {"logs", "nope"}, {"suspend", "nope"}, {"resume", "nope"},
	{"scale", "nope", "--workers", "1"}, {"delete", "nope"},
}

// TestUnknownJob: a job that does not exist, or a ConfigMap that is no
// job's record, is one line and exit status 1, for every command.
func TestUnknownJob(t *testing.T) {
	t.Parallel()
	c := newCluster(t, "op-errors")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "plain"}, Data: map[string]string{"spec.json": "{}"}}
	if _, err := c.cs.CoreV1().ConfigMaps(c.ns).Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, job := range []string{"nope", "plain"} {
		for _, args := range jobCommands {
			args := append([]string{args[0], job}, args[2:]...)
			r := c.tfgen(t0, args...)
			want := `tfgen: job "` + job + `" not found in namespace "op-errors"` + "\n"
			if r.code != 1 || r.stdout != "" || r.stderr != want {
				t.Errorf("tfgen %s: exit status %d, stdout %q, stderr %q; want 1, nothing, %q", strings.Join(args, " "), r.code, r.stdout, r.stderr, want)
			}
		}
	}
	r := c.tfgen(t0, "list")
	if r.code != 0 || r.stdout != "" || r.stderr != "No jobs found in namespace op-errors.\n" {
		t.Errorf("list of no jobs: exit status %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}

	// The same from the binaries, tfgen and the kubectl plugin.
	for _, bin := range []string{bins.tfgen, bins.plugin} {
		code, stdout, stderr := runBinary(t, bin, "status", "nope", "-n", c.ns, "--kubeconfig", c.cp.Kubeconfig())
		if want := `tfgen: job "nope" not found in namespace "op-errors"` + "\n"; code != 1 || stdout != "" || stderr != want {
			t.Errorf("%s status nope: exit status %d, stdout %q, stderr %q; want 1, nothing, %q", filepath.Base(bin), code, stdout, stderr, want)
		}
	}
}

// TestUnreachable: an API server that cannot be reached (a closed port) is
// one line and exit status 1, for every command.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := `apiVersion: v1
kind: Config
clusters: [{name: closed, cluster: {server: "https://` + addr + `", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: closed, context: {cluster: closed, user: u, namespace: team}}]
current-context: closed
`
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range append([][]string{{"list"}, {"list", "-A"}}, jobCommands...) {
		code, stdout, stderr := runBinary(t, bins.tfgen, append(args, "--kubeconfig", kubeconfig)...)
		if code != 1 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "tfgen: ") ||
			!strings.Contains(stderr, addr+": connect: connection refused") {
			t.Errorf("tfgen %s: exit status %d, stdout %q, stderr %q; want 1, nothing, one line saying the connection was refused",
				strings.Join(args, " "), code, stdout, stderr)
		}
	}
}

// runBinary runs bin with args and returns its exit status and output.
func runBinary(t *testing.T, bin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("run %s: %v", bin, err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}
