package kubelet135

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// kubeletVersion is the minor of this package's kubelet.
const kubeletVersion = "1.35"

// cluster is how the tests reach the package's cluster.
var cluster harness.WorkloadCluster

func TestMain(m *testing.M) {
	os.Exit(harness.Suite("kubelet135", func(dir string) int {
		// The pods (any user) write the workload's reports into it.
		if err := os.Chmod(dir, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		cli, err := harness.FindCLI(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "kubelet135:", err)
			return 1
		}
		img, err := harness.BuildNodeImages(filepath.Join(dir, "bin"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "kubelet135:", err)
			return 1
		}
		img.Node.KubeletVersion = kubeletVersion
		cluster = harness.WorkloadCluster{CLI: cli, SupervisorImage: img.Supervisor, Scratch: dir}
		return controlplane.Main(m, controlplane.Options{Node: img.Node})
	}))
}

// waitTimeout bounds every wait for the cluster to reach a state.
const waitTimeout = 2 * time.Minute
