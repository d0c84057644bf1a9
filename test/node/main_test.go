package node

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// The workload's image, which the node gets besides the supervisor's.
const (
	workloadImage = harness.WorkloadImage
	workloadPath  = harness.WorkloadPath
)

// supervisorImage is the tfsupervisor image the jobs are rendered with
// (harness.NodeImages).
var supervisorImage string

// bins are the binaries under test.
var bins struct {
	tfgen   harness.Command
	kubectl harness.Kubectl
}

// scratch is the suite's temporary directory.
var scratch string

func TestMain(m *testing.M) {
	os.Exit(harness.Suite("node", func(dir string) int {
		scratch = dir
		return runSuite(m)
	}))
}

func runSuite(m *testing.M) int {
	// The pods (any user) write their reports into it through a hostPath.
	if err := os.Chmod(scratch, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := findBinaries(); err != nil {
		fmt.Fprintln(os.Stderr, "node:", err)
		return 1
	}
	img, err := harness.BuildNodeImages(filepath.Join(scratch, "bin"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "node:", err)
		return 1
	}
	supervisorImage = img.Supervisor
	fmt.Printf("node: tfsupervisor image %s\n", supervisorImage)
	return controlplane.Main(m, controlplane.Options{Node: img.Node, Kueue: true, KueueWaitForPodsReady: kueueReadiness, FeatureGates: controlplane.WorkloadAPI.FeatureGates, RuntimeConfig: controlplane.WorkloadAPI.RuntimeConfig})
}

// findBinaries takes tfgen from $TFGEN_BIN when it is there, else builds
// it, and finds kubectl on PATH.
func findBinaries() error {
	dir := filepath.Join(scratch, "bin")
	tfgen, err := harness.Binary("tfgen", dir)
	if err != nil {
		return err
	}
	bins.tfgen = harness.Command{Path: tfgen}
	bins.kubectl, err = harness.FindKubectl(filepath.Join(scratch, "kube-cache"))
	return err
}
