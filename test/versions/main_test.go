package versions

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/pkg/version"
	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// root is the repository root, relative to this package.
const root = "../.."

// namespace is where each server's objects are created.
const namespace = "tfgen-versions"

// scratch is the suite's temporary directory.
var scratch string

func TestMain(m *testing.M) {
	os.Exit(harness.Suite("versions", func(dir string) int {
		scratch = dir
		code := m.Run()
		stopServers(code != 0)
		return code
	}))
}

// server is a kube-apiserver of one minor, with the PodGroup CRDs.
type server struct {
	minor string
	cp    *controlplane.ControlPlane
	dry   *harness.DryRunner
}

// lazyServer is a server started on first use.
type lazyServer struct {
	once sync.Once
	s    *server
	err  error
}

// servers are the API servers of every minor, each started on first use.
var servers = map[string]*lazyServer{}

func init() {
	for _, v := range controlplane.KubeVersions {
		servers[v] = &lazyServer{}
	}
}

// apiServer returns the API server of minor, starting it on first use.
func apiServer(t *testing.T, minor string) *server {
	t.Helper()
	e, ok := servers[minor]
	if !ok {
		t.Fatalf("no API server of Kubernetes %s: the control plane runs %v", minor, controlplane.KubeVersions)
	}
	e.once.Do(func() { e.s, e.err = startServer(minor) })
	if e.err != nil {
		t.Fatalf("the API server of Kubernetes %s: %v", minor, e.err)
	}
	return e.s
}

// startServer starts etcd and kube-apiserver of minor, the newest with
// the Workload API (its only minor that has it), installs the PodGroup
// CRDs and makes the namespace.
func startServer(minor string) (*server, error) {
	opts := controlplane.Options{KubeVersion: minor}
	if minor == version.KubeVersion {
		opts.FeatureGates, opts.RuntimeConfig = controlplane.WorkloadAPI.FeatureGates, controlplane.WorkloadAPI.RuntimeConfig
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cp, err := controlplane.Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	s := &server{minor: minor, cp: cp}
	fmt.Printf("versions: kube-apiserver %s started in %v\n", cp.KubeVersion(), cp.StartTime().Round(time.Millisecond))
	if err := harness.InstallCRDs(ctx, cp.RestConfig(), harness.PodGroupCRDs); err != nil {
		cp.Stop()
		return nil, err
	}
	if _, err := cp.Client().CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{}); err != nil {
		cp.Stop()
		return nil, err
	}
	if s.dry, err = harness.NewDryRunner(cp.RestConfig(), namespace); err != nil {
		cp.Stop()
		return nil, err
	}
	return s, nil
}

// stopServers stops every API server started, printing their logs first
// if a test failed.
func stopServers(failed bool) {
	for _, e := range servers {
		if e.s == nil {
			continue
		}
		if failed {
			fmt.Fprint(os.Stderr, e.s.cp.Logs(30))
		}
		e.s.cp.Stop()
	}
}

// binDir is $TFGEN_BIN, else the repository's bin/.
func binDir() string {
	if d := os.Getenv("TFGEN_BIN"); d != "" {
		return d
	}
	return filepath.Join(root, "bin")
}
