package node

import (
	"os"
	"sync"
	"testing"
	"time"

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

// namespace creates a fresh namespace with labels; it is deleted when the
// test ends, and the node agent's logs of its pods are shown if t failed.
func (c *cluster) namespace(t testing.TB, prefix string, labels map[string]string) string {
	t.Helper()
	ns := harness.Namespace(t, c.cp.Client(), prefix, labels)
	// Cleanups run last first: the logs are read before the namespace goes.
	t.Cleanup(func() {
		if t.Failed() || os.Getenv("TFGEN_E2E_LOGS") != "" {
			t.Logf("pods of namespace %s:\n%s", ns, harness.PodLogs(c.cp.Client(), bins.kubectl, c.cp.Kubeconfig(), ns))
		}
	})
	return ns
}

// waitTimeout bounds every wait for the cluster to reach a state.
const waitTimeout = 2 * time.Minute

// poll waits for the cluster to reach a state: cond is called every 100ms
// until waitTimeout, an error counting as not yet.
var poll = harness.Poller{Interval: 100 * time.Millisecond, Timeout: waitTimeout, RetryErrors: true}.Poll
