package node

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/tfgen/tfgen/test/controlplane"
)

// cluster is the package's control plane with its node.
type cluster struct{ cp *controlplane.ControlPlane }

// getCluster returns the package's cluster, starting it on first use.
func getCluster(t testing.TB) *cluster {
	t.Helper()
	cp := controlplane.Shared(t)
	startLog.Do(func() { t.Logf("control plane and node started in %v", cp.StartTime().Round(time.Millisecond)) })
	return &cluster{cp: cp}
}

var startLog sync.Once

// podLogs is every container's log (the current and the previous run) of
// every pod in namespace ns, as kubectl logs gives it, and the pods' status.
func (c *cluster) podLogs(ns string) string {
	var b strings.Builder
	pods, err := c.cp.Client().CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return err.Error()
	}
	for _, p := range pods.Items {
		var ctrs []string
		for _, s := range append(p.Status.InitContainerStatuses, p.Status.ContainerStatuses...) {
			ctrs = append(ctrs, fmt.Sprintf("%s(restarts %d, %+v)", s.Name, s.RestartCount, s.State))
		}
		fmt.Fprintf(&b, "--- pod %s: %s %v\n", p.Name, p.Status.Phase, ctrs)
		for _, ctr := range append(p.Spec.InitContainers, p.Spec.Containers...) {
			for _, prev := range []bool{true, false} {
				r := kubectl(c.cp.Kubeconfig(), nil, "logs", "-n", ns, p.Name, "-c", ctr.Name, fmt.Sprintf("--previous=%t", prev))
				if r.err == nil && r.stdout != "" {
					fmt.Fprintf(&b, "--- %s/%s (previous %t):\n%s", p.Name, ctr.Name, prev, r.stdout)
				}
			}
		}
	}
	return b.String()
}

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
// test ends, and the node agent's logs of its pods are shown if t failed.
func (c *cluster) namespace(t testing.TB, prefix string, labels map[string]string) string {
	t.Helper()
	cs := c.cp.Client()
	ns, err := cs.CoreV1().Namespaces().Create(t.Context(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-", Labels: labels}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() || os.Getenv("TFGEN_E2E_LOGS") != "" {
			t.Logf("pods of namespace %s:\n%s", ns.Name, c.podLogs(ns.Name))
		}
		_ = cs.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	})
	return ns.Name
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

// decodeObjects reads a YAML stream or a JSON document (a v1 List is
// flattened into its items); documents that are not objects (no kind)
// make ok false.
func decodeObjects(data []byte) (objs []object, ok bool, err error) {
	d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var o object
		if err := d.Decode(&o); errors.Is(err, io.EOF) {
			return objs, true, nil
		} else if err != nil {
			return nil, false, err
		}
		if o == nil {
			continue
		}
		if o["kind"] == nil || o["apiVersion"] == nil {
			return nil, false, nil
		}
		if o["kind"] == "List" {
			items, _ := o["items"].([]any)
			for _, it := range items {
				objs = append(objs, it.(object))
			}
			continue
		}
		objs = append(objs, o)
	}
}
