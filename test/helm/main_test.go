package helm

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// tfgen is the tfgen binary built from this tree, run from the repository
// root so that paths read as a user types them.
var tfgen harness.Command

// helmHome holds Helm's cache, configuration and data (plugins) for the
// tests alone.
var helmHome string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "tfgen-helm-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	tfgen = harness.Command{Path: filepath.Join(dir, "bin", "tfgen"), Dir: root}
	if err := harness.Build(tfgen.Path, "github.com/tfgen/tfgen/cmd/tfgen"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	helmHome = filepath.Join(dir, "helm")
	// The control plane starts on first use: only the install tests need it.
	// The controller-manager creates the StatefulSets' pods and collects
	// them when the StatefulSets go.
	return controlplane.Main(m, controlplane.Options{ControllerManager: true})
}
