package controlplane

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/version"

	tfgenversion "github.com/tfgen/tfgen/pkg/version"
)

// KubeVersions are the Kubernetes minors the control plane runs, oldest
// first: the newest, tfgen's default target (pkg/version.KubeVersion),
// from BinDir; each older one from BinDir/kube-MINOR/, where `make tools`
// builds only what the tests of that minor run (hack/tools/install.sh,
// KUBE_OLDER): for 1.34 the API server, controller-manager, scheduler and
// kubelet; for 1.35 the API server, controller-manager and kubelet; for
// 1.36 the API server.
var KubeVersions = []string{"1.34", "1.35", "1.36", tfgenversion.KubeVersion}

// WorkloadAPI is what a cluster needs for --gang-scheduler kubernetes
// (README, "Gang scheduling"), on Kubernetes 1.37: the GenericWorkload
// gate on every component and scheduling.k8s.io/v1beta1 served. 1.34
// does not know the gate (an unknown gate stops a component); 1.35 and
// 1.36 know it but serve no v1beta1 of the Workload API.
var WorkloadAPI = struct {
	FeatureGates  map[string]bool
	RuntimeConfig []string
}{map[string]bool{"GenericWorkload": true}, []string{"scheduling.k8s.io/v1beta1=true"}}

// kubeBinDir is where the Kubernetes binaries of minor v are: bin for the
// newest (or ""), bin/kube-v for an older one of KubeVersions.
func kubeBinDir(bin, v string) (string, error) {
	if v == "" || v == tfgenversion.KubeVersion {
		return bin, nil
	}
	if !slices.Contains(KubeVersions, v) {
		return "", fmt.Errorf("controlplane: Kubernetes %s: the control plane runs %s", v, strings.Join(KubeVersions, ", "))
	}
	return filepath.Join(bin, "kube-"+v), nil
}

// orNewest is v, or the newest of KubeVersions if v is empty.
func orNewest(v string) string {
	if v == "" {
		return tfgenversion.KubeVersion
	}
	return v
}

// sameMinor checks that gitVersion (v1.34.4), what binary says it is, is
// of minor want (1.34).
func sameMinor(binary, gitVersion, want string) error {
	got, err := version.ParseSemantic(gitVersion)
	if err != nil {
		return fmt.Errorf("controlplane: %s reports version %q: %w", binary, gitVersion, err)
	}
	if fmt.Sprintf("%d.%d", got.Major(), got.Minor()) != want {
		return fmt.Errorf("controlplane: %s is Kubernetes %s, want %s: run `make tools`", binary, gitVersion, want)
	}
	return nil
}

// checkAPIServerVersion checks that the API server is of minor want.
func (cp *ControlPlane) checkAPIServerVersion(binary, want string) error {
	info, err := cp.client.Discovery().ServerVersion()
	if err != nil {
		return fmt.Errorf("controlplane: the API server's version: %w", err)
	}
	cp.kubeVersion = info.GitVersion
	return sameMinor(binary, info.GitVersion, want)
}

// KubeVersion is the API server's version, such as v1.34.4.
func (cp *ControlPlane) KubeVersion() string { return cp.kubeVersion }
