package operate

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// bins are the binaries the tests run: tfsupervisor for the node agent's
// pods, tfgen and kubectl-tfjob for exit statuses and the kubectl plugin.
var bins struct{ tfgen, plugin, tfsupervisor string }

// scratch is the package's temporary directory.
var scratch string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	var err error
	if scratch, err = os.MkdirTemp("", "tfgen-operate-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(scratch)
	bin := filepath.Join(scratch, "bin")
	bins.tfgen, bins.plugin, bins.tfsupervisor = filepath.Join(bin, "tfgen"), filepath.Join(bin, "kubectl-tfjob"), filepath.Join(bin, "tfsupervisor")
	for out, pkg := range map[string]string{bins.tfgen: "cmd/tfgen", bins.plugin: "cmd/kubectl-tfjob", bins.tfsupervisor: "cmd/tfsupervisor"} {
		if err := harness.Build(out, "github.com/tfgen/tfgen/"+pkg); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	code := controlplane.Main(m, controlplane.Options{ControllerManager: true, Scheduler: true})
	agent.Stop()
	return code
}
