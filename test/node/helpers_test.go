package node

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
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
				r := bins.kubectl.Run(c.cp.Kubeconfig(), nil, "logs", "-n", ns, p.Name, "-c", ctr.Name, fmt.Sprintf("--previous=%t", prev))
				if r.Err == nil && r.Stdout != "" {
					fmt.Fprintf(&b, "--- %s/%s (previous %t):\n%s", p.Name, ctr.Name, prev, r.Stdout)
				}
			}
		}
	}
	return b.String()
}

// namespace creates a fresh namespace with labels; it is deleted when the
// test ends, and the node agent's logs of its pods are shown if t failed.
func (c *cluster) namespace(t testing.TB, prefix string, labels map[string]string) string {
	t.Helper()
	ns := harness.Namespace(t, c.cp.Client(), prefix, labels)
	// Cleanups run last first: the logs are read before the namespace goes.
	t.Cleanup(func() {
		if t.Failed() || os.Getenv("TFGEN_E2E_LOGS") != "" {
			t.Logf("pods of namespace %s:\n%s", ns, c.podLogs(ns))
		}
	})
	return ns
}

// waitTimeout bounds every wait for the cluster to reach a state.
const waitTimeout = 2 * time.Minute

// poll waits for the cluster to reach a state: cond is called every 100ms
// until waitTimeout, an error counting as not yet.
var poll = harness.Poller{Interval: 100 * time.Millisecond, Timeout: waitTimeout, RetryErrors: true}.Poll
