package nodeagent

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestHostAliases starts a process of a pod with hostAliases, which must
// resolve them through its own /etc/hosts while the agent's stays as it was.
func TestHostAliases(t *testing.T) {
	const alias = "j-worker-0.j-worker.ns.svc"
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "j-worker-0", Namespace: "ns"},
		Spec: corev1.PodSpec{Hostname: "j-worker-0", Subdomain: "j-worker",
			HostAliases: []corev1.HostAlias{{IP: "127.0.0.1", Hostnames: []string{alias, "other"}}}}}
	r := &podRun{pod: pod, dir: t.TempDir(), ip: "10.244.0.7"}
	before, err := os.ReadFile("/etc/hosts")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := exec.Command("sh", "-c", "cat /etc/hosts; getent hosts "+alias)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := r.start(cmd); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v:\n%s", err, &out)
	}
	for _, want := range []string{"10.244.0.7\tj-worker-0.j-worker.ns.svc.cluster.local\tj-worker-0\n",
		"# Entries added by HostAliases.\n127.0.0.1\t" + alias + "\tother\n", "127.0.0.1       " + alias} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("want %q in the process's output:\n%s", want, &out)
		}
	}
	after, err := os.ReadFile("/etc/hosts")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) || strings.Contains(string(after), alias) {
		t.Errorf("the agent's /etc/hosts changed:\n%s", after)
	}

	// Without hostAliases, the machine's.
	out.Reset()
	r.pod = &corev1.Pod{ObjectMeta: pod.ObjectMeta}
	cmd = exec.Command("cat", "/etc/hosts")
	cmd.Stdout = &out
	if err := r.start(cmd); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil || !bytes.Equal(out.Bytes(), before) {
		t.Errorf("without hostAliases: %v, /etc/hosts:\n%s", err, &out)
	}
}
