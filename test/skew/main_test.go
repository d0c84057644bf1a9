package skew

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// kubeVersion is the minor of this package's cluster.
const kubeVersion = "1.34"

// cluster is how the tests reach the package's cluster.
var cluster harness.WorkloadCluster

func TestMain(m *testing.M) {
	os.Exit(harness.Suite("skew", func(dir string) int {
		// The pods (any user) write the workload's reports into it.
		if err := os.Chmod(dir, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		cli, err := harness.FindCLI(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "skew:", err)
			return 1
		}
		img, err := harness.BuildNodeImages(filepath.Join(dir, "bin"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "skew:", err)
			return 1
		}
		cluster = harness.WorkloadCluster{CLI: cli, SupervisorImage: img.Supervisor, Scratch: dir}
		return controlplane.Main(m, controlplane.Options{KubeVersion: kubeVersion, Node: img.Node})
	}))
}

// waitTimeout bounds every wait for the cluster to reach a state.
const waitTimeout = 2 * time.Minute

// poll waits for the cluster to reach a state.
var poll = harness.Poller{Interval: 100 * time.Millisecond, Timeout: waitTimeout, RetryErrors: true}.Poll

// start starts spec on the package's cluster.
func start(t *testing.T, spec harness.WorkloadJob) *harness.WorkloadRun {
	t.Helper()
	c := cluster
	c.CP = controlplane.Shared(t)
	return c.Start(t, spec, waitTimeout)
}
