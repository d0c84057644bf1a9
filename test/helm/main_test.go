package helm

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tfgen/tfgen/test/controlplane"
)

// tfgenBin is the tfgen binary built from this tree; helmHome holds Helm's
// cache, configuration and data (plugins) for the tests alone.
var tfgenBin, helmHome string

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
	tfgenBin = filepath.Join(dir, "bin", "tfgen")
	build := exec.Command("go", "build", "-o", tfgenBin, "github.com/tfgen/tfgen/cmd/tfgen")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build tfgen: %v\n%s", err, out)
		return 1
	}
	helmHome = filepath.Join(dir, "helm")
	// The control plane starts on first use: only the install tests need it.
	// The controller-manager creates the StatefulSets' pods and collects
	// them when the StatefulSets go.
	return controlplane.Main(m, controlplane.Options{ControllerManager: true})
}
