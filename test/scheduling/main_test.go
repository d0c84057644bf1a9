package scheduling

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// bins are the binaries the tests run.
var bins struct {
	tfgen   harness.Command
	kubectl harness.Kubectl
}

// scratch is the suite's temporary directory.
var scratch string

func TestMain(m *testing.M) {
	os.Exit(harness.Suite("scheduling", func(dir string) int {
		scratch = dir
		tfgen, err := harness.Binary("tfgen", filepath.Join(dir, "bin"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "scheduling:", err)
			return 1
		}
		bins.tfgen = harness.Command{Path: tfgen}
		if bins.kubectl, err = harness.FindKubectl(filepath.Join(dir, "kube-cache")); err != nil {
			fmt.Fprintln(os.Stderr, "scheduling:", err)
			return 1
		}
		code := controlplane.Main(m, controlplane.Options{ControllerManager: true, Scheduler: true})
		for i := range agents {
			agents[i].Stop()
		}
		return code
	}))
}
