package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/tfgen/tfgen/test/controlplane"
)

// kubectlResult is what a kubectl run printed and how it ended.
type kubectlResult struct {
	stdout, stderr string
	err            error
}

// kubectl runs kubectl as kubeconfig's user with stdin (may be nil).
func kubectl(kubeconfig string, stdin []byte, args ...string) kubectlResult {
	cmd := exec.Command(bins.kubectl, append([]string{"--kubeconfig", kubeconfig, "--cache-dir", filepath.Join(scratch, "kube-cache")}, args...)...)
	cmd.Env = append(os.Environ(), "KUBECTL_EXTERNAL_DIFF=") // the plain diff(1)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return kubectlResult{out.String(), errOut.String(), err}
}

// mustKubectl runs kubectl as admin and fails t if it fails.
func (c *cluster) mustKubectl(t testing.TB, stdin []byte, args ...string) kubectlResult {
	t.Helper()
	r := kubectl(c.cp.Kubeconfig(), stdin, args...)
	if r.err != nil {
		t.Fatalf("kubectl %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.err, r.stdout, r.stderr)
	}
	return r
}

// tfgen runs bin/tfgen with stdin and returns its stdout; t fails if it does.
func tfgen(t testing.TB, stdin []byte, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(bins.tfgen, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("tfgen %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.Bytes()
}

// namespace creates a fresh namespace with labels; it is deleted when the
// test ends.
func (c *cluster) namespace(t testing.TB, prefix string, labels map[string]string) string {
	t.Helper()
	cs := c.cp.Client()
	ns, err := cs.CoreV1().Namespaces().Create(t.Context(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-", Labels: labels}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	})
	return ns.Name
}

// noPods forbids pods in namespace ns (a ResourceQuota of 0 pods), so
// that manifests apply without their StatefulSets starting anything
// (tfjob-large asks for 10,000 workers).
func (c *cluster) noPods(t testing.TB, ns string) {
	t.Helper()
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "no-pods"},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("0")}}}
	if _, err := c.cp.Client().CoreV1().ResourceQuotas(ns).Create(t.Context(), q, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// waitTimeout bounds every wait for the cluster to reach a state.
const waitTimeout = 2 * time.Minute

// poll calls cond every 100ms until it is true or waitTimeout passes;
// then t fails with what and cond's last word. Errors count as false.
func poll(t testing.TB, what string, cond func(ctx context.Context) (bool, string, error)) {
	t.Helper()
	last := ""
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, waitTimeout, true, func(ctx context.Context) (bool, error) {
		ok, state, err := cond(ctx)
		if err != nil {
			if last == "" {
				last = err.Error()
			}
			return false, nil
		}
		last = state
		return ok, nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v; last seen: %s", what, err, last)
	}
}

// installCRDs installs minimal PodGroup CRDs (Volcano's and
// scheduler-plugins'), so that manifests with gang scheduling apply.
func installCRDs(cp *controlplane.ControlPlane) error {
	crds, err := os.ReadFile(filepath.Join("testdata", "podgroup-crds.yaml"))
	if err != nil {
		return err
	}
	if r := kubectl(cp.Kubeconfig(), crds, "apply", "-f", "-"); r.err != nil {
		return fmt.Errorf("install CRDs: %v\n%s", r.err, r.stderr)
	}
	r := kubectl(cp.Kubeconfig(), nil, "wait", "--for=condition=Established", "--timeout=60s",
		"crd/podgroups.scheduling.volcano.sh", "crd/podgroups.scheduling.x-k8s.io")
	if r.err != nil {
		return fmt.Errorf("wait for CRDs: %v\n%s", r.err, r.stderr)
	}
	return nil
}
