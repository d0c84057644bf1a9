package scheduling

import (
	"fmt"
	"os"
	"testing"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// cli is tfgen, from $TFGEN_BIN (make e2e) or built here, and kubectl.
var cli harness.CLI

// scratch is the suite's temporary directory.
var scratch string

func TestMain(m *testing.M) {
	os.Exit(harness.Suite("scheduling", func(dir string) int {
		scratch = dir
		var err error
		if cli, err = harness.FindCLI(dir); err != nil {
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
