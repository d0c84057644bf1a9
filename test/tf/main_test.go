package tf

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// bins are the binaries under test, from $TFGEN_BIN (make e2e) or built.
var bins struct{ tfgen, tfsupervisor string }

// venvs are the virtualenvs of make tf.
var venvs struct{ tf, mxnet string }

// root is the repository's root, where the examples' commands run.
var root string

// scratch is the package's temporary directory.
var scratch string

func TestMain(m *testing.M) {
	os.Exit(harness.Suite("tf", func(dir string) int {
		scratch = dir
		return run(m)
	}))
}

func run(m *testing.M) int {
	var err error
	if root, err = filepath.Abs(filepath.Join("..", "..")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := findBinaries(); err != nil {
		fmt.Fprintln(os.Stderr, "tf:", err)
		return 1
	}
	if err := findVenvs(); err != nil {
		fmt.Fprintln(os.Stderr, "tf:", err)
		return 1
	}
	code := controlplane.Main(m, controlplane.Options{ControllerManager: true, Scheduler: true})
	agent.Stop()
	return code
}

// findBinaries takes tfgen and tfsupervisor from $TFGEN_BIN when they are
// there, else builds them.
func findBinaries() (err error) {
	dir := filepath.Join(scratch, "bin")
	if bins.tfgen, err = harness.Binary("tfgen", dir); err != nil {
		return err
	}
	bins.tfsupervisor, err = harness.Binary("tfsupervisor", dir)
	return err
}

// findVenvs checks that the virtualenvs of make tf import their framework.
func findVenvs() error {
	for _, v := range []struct {
		env, dir string
		to       *string
		imports  string
	}{
		{"TFGEN_TF_VENV", ".venv/tensorflow", &venvs.tf,
			"import tensorflow as tf, tf_keras, keras, tensorboard, numpy; print('tensorflow', tf.__version__, 'tf_keras', tf_keras.__version__, 'keras', keras.__version__, 'tensorboard', tensorboard.__version__, 'numpy', numpy.__version__)"},
		{"TFGEN_MXNET_VENV", ".venv/mxnet", &venvs.mxnet, "import mxnet, numpy; print('mxnet', mxnet.__version__, 'numpy', numpy.__version__)"},
	} {
		if *v.to = os.Getenv(v.env); *v.to == "" {
			return fmt.Errorf("$%s is not set: run make tf (make e2e does), then %s=$PWD/%s", v.env, v.env, v.dir)
		}
		cmd := exec.Command(filepath.Join(*v.to, "bin", "python3"), "-c", v.imports)
		cmd.Env = append(os.Environ(), "TF_CPP_MIN_LOG_LEVEL=2")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s=%s: %v\n%s(run make tf)", v.env, *v.to, err, out)
		}
		fmt.Printf("tf: %s", out)
	}
	return nil
}
