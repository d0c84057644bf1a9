package e2e

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// supervisorRepo is the tfsupervisor image the examples are rendered with.
const supervisorRepo = "ghcr.io/tfgen/tfsupervisor"

// bins are the binaries under test: tfgen from $TFGEN_BIN (make e2e) or
// built here, and kubectl.
var bins struct {
	tfgen   harness.Command
	kubectl harness.Kubectl
}

// scratch is the suite's temporary directory.
var scratch string

func TestMain(m *testing.M) {
	os.Exit(harness.Suite("e2e", func(dir string) int {
		scratch = dir
		return runSuite(m)
	}))
}

func runSuite(m *testing.M) int {
	if err := findBinaries(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	// With the Workload API, so that every golden file, that of
	// --gang-scheduler kubernetes included, applies.
	return controlplane.Main(m, controlplane.Options{ControllerManager: true, Scheduler: true,
		FeatureGates: controlplane.WorkloadAPI.FeatureGates, RuntimeConfig: controlplane.WorkloadAPI.RuntimeConfig})
}

// findBinaries takes tfgen from $TFGEN_BIN when it is there, else builds
// it, and finds kubectl on PATH.
func findBinaries() error {
	cli, err := harness.FindCLI(scratch)
	bins.tfgen, bins.kubectl = cli.Tfgen, cli.Kubectl
	return err
}

// shared is the package's cluster: the control plane and the PodGroup
// CRDs, set up on first use.
var shared struct {
	once sync.Once
	err  error
}

// cluster is what a test talks to.
type cluster struct {
	cp *controlplane.ControlPlane
}

// getCluster returns the package's cluster, starting it on first use.
func getCluster(t testing.TB) *cluster {
	t.Helper()
	cp := controlplane.Shared(t)
	shared.once.Do(func() {
		t.Logf("control plane started in %v", cp.StartTime().Round(time.Millisecond))
		shared.err = installCRDs(cp)
		if shared.err == nil {
			shared.err = cp.InstallAdmissionPolicy(bins.kubectl.Path)
		}
	})
	if shared.err != nil {
		t.Fatalf("cluster: %v", shared.err)
	}
	return &cluster{cp: cp}
}
