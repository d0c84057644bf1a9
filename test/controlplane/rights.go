package controlplane

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// AdmissionPolicy is tfgen's optional ValidatingAdmissionPolicy, from the
// repository's deploy/ directory.
func AdmissionPolicy() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "deploy", "admission-policy.yaml")
}

// InstallAdmissionPolicy applies AdmissionPolicy with kubectl as admin and
// waits until the API server has checked it; a test that needs it in
// force still waits for a refusal.
func (cp *ControlPlane) InstallAdmissionPolicy(kubectl string) error {
	if out, err := cp.kubectl(kubectl, cp.kubeconfig, "apply", "-f", AdmissionPolicy()); err != nil {
		return fmt.Errorf("install the admission policy: %v\n%s", err, out)
	}
	if out, err := cp.kubectl(kubectl, cp.kubeconfig, "wait", "--for=jsonpath={.status.observedGeneration}=1", "--timeout=60s",
		"validatingadmissionpolicy/tfgen-supervisor-pods"); err != nil {
		return fmt.Errorf("wait for the admission policy: %v\n%s", err, out)
	}
	return nil
}

// Rules lists what ServiceAccount ns/sa may do in ns, one line per row of
// kubectl auth can-i --list (RESOURCE NON-RESOURCE-URLS NAMES VERBS),
// sorted.
func (cp *ControlPlane) Rules(ctx context.Context, kubectl, ns, sa string) ([]string, error) {
	kubeconfig, err := cp.ServiceAccountKubeconfig(ctx, ns, sa)
	if err != nil {
		return nil, err
	}
	out, err := cp.kubectl(kubectl, kubeconfig, "auth", "can-i", "--list", "--no-headers", "-n", ns)
	if err != nil {
		return nil, fmt.Errorf("kubectl auth can-i --list as %s: %v\n%s", sa, err, out)
	}
	var rules []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		rules = append(rules, strings.Join(strings.Fields(line), " "))
	}
	slices.Sort(rules)
	return rules, nil
}

// kubectl runs kubectl as kubeconfig's user; its output is stdout, or
// stderr when it fails.
func (cp *ControlPlane) kubectl(kubectl, kubeconfig string, args ...string) (string, error) {
	cmd := exec.Command(kubectl, append([]string{"--kubeconfig", kubeconfig}, args...)...)
	cmd.Env = os.Environ()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return errOut.String(), err
	}
	return out.String(), nil
}
