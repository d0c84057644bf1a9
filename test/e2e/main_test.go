package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/nodeagent"
)

// Images the node agent knows. The supervisor image is matched by
// repository, whatever tag tfgen renders.
const (
	supervisorRepo = "ghcr.io/tfgen/tfsupervisor"
	workloadImage  = "tfgen.test/workload:1"
	workloadPath   = "/workload" // the workload binary inside its image
)

// bins are the binaries under test: tfgen and tfsupervisor from
// $TFGEN_BIN (make e2e) or built here, and the test workload.
var bins struct{ tfgen, tfsupervisor, workload, kubectl string }

// scratch is the suite's temporary directory.
var scratch string

func TestMain(m *testing.M) {
	began := time.Now()
	code := runSuite(m)
	fmt.Printf("e2e: suite took %v\n", time.Since(began).Round(100*time.Millisecond))
	os.Exit(code)
}

func runSuite(m *testing.M) int {
	var err error
	if scratch, err = os.MkdirTemp("", "tfgen-e2e-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(scratch)
	if err := findBinaries(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	code := controlplane.Main(m, controlplane.Options{ControllerManager: true, Scheduler: true,
		FeatureGates: workloadAPI.gates, RuntimeConfig: workloadAPI.runtimeConfig})
	if shared.agent != nil {
		shared.agent.Stop()
	}
	if b, _ := os.ReadFile(agentLog()); code != 0 && len(b) > 0 {
		fmt.Fprintf(os.Stderr, "--- node agent ---\n%s", b)
	}
	return code
}

// findBinaries takes tfgen and tfsupervisor from $TFGEN_BIN when both are
// there, else builds them (as make build does), and builds the workload.
func findBinaries() error {
	build := func(out, pkg string, static bool) error {
		cmd := exec.Command("go", "build", "-trimpath", "-o", out, pkg)
		cmd.Env = os.Environ()
		if static {
			cmd.Env = append(cmd.Env, "CGO_ENABLED=0")
		}
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("build %s: %v\n%s", pkg, err, b)
		}
		return nil
	}
	dir := os.Getenv("TFGEN_BIN")
	bins.tfgen, bins.tfsupervisor = filepath.Join(dir, "tfgen"), filepath.Join(dir, "tfsupervisor")
	if _, err1 := os.Stat(bins.tfgen); dir == "" || err1 != nil {
		bins.tfgen = filepath.Join(scratch, "bin", "tfgen")
		if err := build(bins.tfgen, "github.com/tfgen/tfgen/cmd/tfgen", false); err != nil {
			return err
		}
	}
	if _, err2 := os.Stat(bins.tfsupervisor); dir == "" || err2 != nil {
		bins.tfsupervisor = filepath.Join(scratch, "bin", "tfsupervisor")
		if err := build(bins.tfsupervisor, "github.com/tfgen/tfgen/cmd/tfsupervisor", true); err != nil {
			return err
		}
	}
	bins.workload = filepath.Join(scratch, "bin", "workload")
	if err := build(bins.workload, "github.com/tfgen/tfgen/test/workload", true); err != nil {
		return err
	}
	var err error
	if bins.kubectl, err = exec.LookPath("kubectl"); err != nil {
		return fmt.Errorf("kubectl is needed on PATH: %w", err)
	}
	return nil
}

// shared is the package's cluster: the control plane, the node agent and
// the PodGroup CRDs, set up on first use.
var shared struct {
	once  sync.Once
	err   error
	cp    *controlplane.ControlPlane
	agent *nodeagent.Agent
}

// cluster is what a test talks to.
type cluster struct {
	cp    *controlplane.ControlPlane
	agent *nodeagent.Agent
}

// getCluster returns the package's cluster, starting it on first use.
func getCluster(t testing.TB) *cluster {
	t.Helper()
	cp := controlplane.Shared(t)
	shared.once.Do(func() {
		shared.cp = cp
		t.Logf("control plane started in %v", cp.StartTime().Round(time.Millisecond))
		shared.agent, shared.err = nodeagent.Start(context.Background(), nodeagent.Config{
			RestConfig: cp.RestConfig(),
			Dir:        filepath.Join(scratch, "node"),
			Images: map[string]nodeagent.Image{
				supervisorRepo: {Files: map[string]string{"/tfsupervisor": bins.tfsupervisor}},
				workloadImage:  {Entrypoint: []string{workloadPath}, Files: map[string]string{workloadPath: bins.workload}},
			},
			Backoff:    200 * time.Millisecond,
			MaxBackoff: 2 * time.Second,
			Logf:       logf,
		})
		if shared.err == nil {
			shared.err = installCRDs(cp)
		}
		if shared.err == nil {
			shared.err = installAdmissionPolicy(cp.Kubeconfig())
		}
	})
	if shared.err != nil {
		t.Fatalf("cluster: %v", shared.err)
	}
	return &cluster{cp: cp, agent: shared.agent}
}

func agentLog() string { return filepath.Join(scratch, "nodeagent.log") }

var logMu sync.Mutex

// logf appends to the node agent's log, printed when the suite fails.
func logf(format string, args ...any) {
	logMu.Lock()
	defer logMu.Unlock()
	f, err := os.OpenFile(agentLog(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	fmt.Fprintf(f, time.Now().Format("15:04:05.000 ")+format+"\n", args...)
	f.Close()
}
