package node

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/tfgen/tfgen/test/controlplane"
)

// The images the node gets. The supervisor image has the shape of
// hack/image's (spec.go there): /tfsupervisor owned by 65532, mode 0555,
// installing itself into /tfgen/bin.
const (
	supervisorImage = "tfgen.test/tfsupervisor:1"
	workloadImage   = "tfgen.test/workload:1"
	workloadPath    = "/workload"
)

// bins are the binaries under test.
var bins struct{ tfgen, tfsupervisor, workload, kubectl string }

// scratch is the suite's temporary directory.
var scratch string

func TestMain(m *testing.M) {
	began := time.Now()
	code := runSuite(m)
	fmt.Printf("node: suite took %v\n", time.Since(began).Round(100*time.Millisecond))
	os.Exit(code)
}

func runSuite(m *testing.M) int {
	var err error
	if scratch, err = os.MkdirTemp("", "tfgen-node-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(scratch)
	// The pods (any user) write their reports into it through a hostPath.
	if err := os.Chmod(scratch, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := findBinaries(); err != nil {
		fmt.Fprintln(os.Stderr, "node:", err)
		return 1
	}
	return controlplane.Main(m, controlplane.Options{Node: &controlplane.NodeOptions{Images: []controlplane.Image{
		{Ref: supervisorImage, Files: map[string]string{"/tfsupervisor": bins.tfsupervisor}, UID: 65532, GID: 65532,
			User: "65532:65532", Entrypoint: []string{"/tfsupervisor", "install", "/tfgen/bin"}},
		{Ref: workloadImage, Files: map[string]string{workloadPath: bins.workload}, Entrypoint: []string{workloadPath}},
	}}})
}

// findBinaries takes tfgen and tfsupervisor from $TFGEN_BIN when both are
// there, else builds them (as make build does), and builds the workload.
func findBinaries() error {
	build := func(out, pkg string) error {
		cmd := exec.Command("go", "build", "-trimpath", "-o", out, pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("build %s: %v\n%s", pkg, err, b)
		}
		return nil
	}
	dir := os.Getenv("TFGEN_BIN")
	bins.tfgen, bins.tfsupervisor = filepath.Join(dir, "tfgen"), filepath.Join(dir, "tfsupervisor")
	for out, pkg := range map[*string]string{&bins.tfgen: "./cmd/tfgen", &bins.tfsupervisor: "./cmd/tfsupervisor"} {
		if _, err := os.Stat(*out); dir == "" || err != nil {
			*out = filepath.Join(scratch, "bin", filepath.Base(pkg))
			if err := build(*out, "github.com/tfgen/tfgen/"+pkg[2:]); err != nil {
				return err
			}
		}
	}
	bins.workload = filepath.Join(scratch, "bin", "workload")
	if err := build(bins.workload, "github.com/tfgen/tfgen/test/workload"); err != nil {
		return err
	}
	var err error
	if bins.kubectl, err = exec.LookPath("kubectl"); err != nil {
		return fmt.Errorf("kubectl is needed on PATH: %w", err)
	}
	return nil
}
