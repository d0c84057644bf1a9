package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// module is the import path of this repository.
const module = "github.com/tfgen/tfgen"

// Build builds the package at import path pkg into out: static
// (CGO_ENABLED=0) and -trimpath, as make build builds tfsupervisor.
func Build(out, pkg string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build %s: %v\n%s", pkg, err, b)
	}
	return nil
}

// Binary returns the path of the command name (./cmd/NAME): from
// $TFGEN_BIN (make e2e) when it is there, else built into dir.
func Binary(name, dir string) (string, error) {
	if bin := os.Getenv("TFGEN_BIN"); bin != "" {
		path := filepath.Join(bin, name)
		if _, err := os.Stat(path); err == nil {
			return path, nil
		}
	}
	path := filepath.Join(dir, name)
	return path, Build(path, module+"/cmd/"+name)
}

// FindKubectl finds kubectl on PATH, with its caches in cacheDir.
func FindKubectl(cacheDir string) (Kubectl, error) {
	path, err := exec.LookPath("kubectl")
	if err != nil {
		return Kubectl{}, fmt.Errorf("kubectl is needed on PATH: %w", err)
	}
	return Kubectl{Path: path, CacheDir: cacheDir}, nil
}

// CLI is what a test drives a cluster with as a user would: tfgen and
// kubectl.
type CLI struct {
	Tfgen   Command
	Kubectl Kubectl
}

// FindCLI takes tfgen from $TFGEN_BIN when it is there, else builds it
// into scratch/bin, and finds kubectl on PATH, its caches in
// scratch/kube-cache.
func FindCLI(scratch string) (CLI, error) {
	tfgen, err := Binary("tfgen", filepath.Join(scratch, "bin"))
	if err != nil {
		return CLI{}, err
	}
	kubectl, err := FindKubectl(filepath.Join(scratch, "kube-cache"))
	return CLI{Tfgen: Command{Path: tfgen}, Kubectl: kubectl}, err
}
