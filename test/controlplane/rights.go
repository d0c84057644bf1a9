package controlplane

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// AdmissionPolicy is tfgen's optional ValidatingAdmissionPolicy, from the
// repository's deploy/ directory.
func AdmissionPolicy() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "deploy", "admission-policy.yaml")
}

// InstallAdmissionPolicy applies AdmissionPolicy with kubectl as admin and
// waits until the controller-manager has type-checked each of its
// policies against its minor's types (status.observedGeneration; it needs
// Options.ControllerManager). A policy the check warns about (a field
// that minor does not know, a typo, a type mismatch) is an error naming
// the expression. A test that needs the policies in force still waits for
// a refusal.
func (cp *ControlPlane) InstallAdmissionPolicy(kubectl string) error {
	if out, err := cp.kubectl(kubectl, cp.kubeconfig, "apply", "-f", AdmissionPolicy()); err != nil {
		return fmt.Errorf("install the admission policy: %v\n%s", err, out)
	}
	names, err := admissionPolicyNames()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, name := range names {
		var policy *admissionregistrationv1.ValidatingAdmissionPolicy
		if err := poll(ctx, func(ctx context.Context) (err error) {
			policy, err = cp.client.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(ctx, name, metav1.GetOptions{})
			if err == nil && policy.Status.ObservedGeneration != policy.Generation {
				err = fmt.Errorf("generation %d type-checked: %d", policy.Generation, policy.Status.ObservedGeneration)
			}
			return err
		}); err != nil {
			return fmt.Errorf("wait for the type check of admission policy %s: %w", name, err)
		}
		if tc := policy.Status.TypeChecking; tc != nil && len(tc.ExpressionWarnings) > 0 {
			var msgs []string
			for _, w := range tc.ExpressionWarnings {
				msgs = append(msgs, w.FieldRef+": "+w.Warning)
			}
			return fmt.Errorf("admission policy %s on Kubernetes %s: type check: %s", name, cp.kubeVersion, strings.Join(msgs, "; "))
		}
	}
	return nil
}

// admissionPolicyNames are the names of AdmissionPolicy's
// ValidatingAdmissionPolicies.
func admissionPolicyNames() ([]string, error) {
	f, err := os.Open(AdmissionPolicy())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var names []string
	dec := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	for {
		var obj metav1.PartialObjectMetadata
		if err := dec.Decode(&obj); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("read %s: %w", AdmissionPolicy(), err)
		}
		if obj.Kind == "ValidatingAdmissionPolicy" {
			names = append(names, obj.Name)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s holds no ValidatingAdmissionPolicy", AdmissionPolicy())
	}
	return names, nil
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
