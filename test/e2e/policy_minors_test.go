package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// TestAdmissionPolicyOnOlderMinors: on a control plane of Kubernetes 1.34
// and of 1.35 (API server and controller-manager of that minor), a job
// rendered for that minor: without deploy/admission-policy.yaml the Role
// alone lets the job's account (the keeper's token) change its pod
// template's image; with it, installed as an administrator would, every
// policy passes that minor's type check (InstallAdmissionPolicy: no
// warnings, so it names no field the minor does not know), the keeper's
// gate patches and lifting a pod's gate are allowed, and an image change
// of the template or of a pod is refused by the policy, as on 1.37.
func TestAdmissionPolicyOnOlderMinors(t *testing.T) {
	t.Parallel()
	for _, minor := range []string{"1.34", "1.35"} {
		t.Run(minor, func(t *testing.T) {
			t.Parallel()
			cp, err := controlplane.Start(t.Context(), controlplane.Options{KubeVersion: minor, ControllerManager: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(cp.Stop)
			t.Logf("Kubernetes %s control plane started in %v", cp.KubeVersion(), cp.StartTime().Round(time.Millisecond))
			policyOnMinor(t, cp, minor)
		})
	}
}

// policyOnMinor is TestAdmissionPolicyOnOlderMinors on cp, of minor.
func policyOnMinor(t *testing.T, cp *controlplane.ControlPlane, minor string) {
	cs := cp.Client()
	ctx := t.Context()
	ns := harness.Namespace(t, cs, "policy", nil)
	spec := jobSpec{name: "alpha", replicas: []replica{{kind: "Worker", n: 2, policy: "Never"}}}
	bins.kubectl.Must(t, cp.Kubeconfig(), bins.tfgen.Must(t, spec.manifest(ns), "render", "-f", "-", "--kube-version", minor), "apply", "-n", ns, "-f", "-")
	keeper := tokenClient(t, cp, ns, "alpha-tfjob", tokenPod(t, cs, ns, "alpha-keeper-0", "alpha-tfjob"))
	sts, err := cs.AppsV1().StatefulSets(ns).Get(ctx, "alpha-worker", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	container := sts.Spec.Template.Spec.Containers[0].Name
	image := func(img string) string {
		return fmt.Sprintf(`{"spec":{"template":{"spec":{"containers":[{"name":%q,"image":%q}]}}}}`, container, img)
	}
	patch := func(body string, dryRun bool) error {
		opts := metav1.PatchOptions{}
		if dryRun {
			opts.DryRun = []string{metav1.DryRunAll}
		}
		_, err := keeper.AppsV1().StatefulSets(ns).Patch(ctx, "alpha-worker", types.StrategicMergePatchType, []byte(body), opts)
		return err
	}

	// The Role alone.
	if err := patch(image("attacker.example/own:1"), false); err != nil {
		t.Fatalf("without the policy, the job's account changed no image: %v", err)
	}
	if got, err := cs.AppsV1().StatefulSets(ns).Get(ctx, "alpha-worker", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	} else if img := got.Spec.Template.Spec.Containers[0].Image; img != "attacker.example/own:1" {
		t.Fatalf("without the policy, the template's image is %s after the job's account changed it", img)
	}
	t.Logf("Kubernetes %s without the policy: the job's account changed its pod template's image", minor)

	if err := cp.InstallAdmissionPolicy(bins.kubectl.Path); err != nil {
		t.Fatal(err)
	}
	t.Logf("Kubernetes %s: every policy type-checked without a warning", minor)
	poll(t, "the admission policy in force", func(ctx context.Context) (bool, string, error) {
		err := patch(image("attacker.example/other:1"), true)
		return outcomeOf(err) == byPolicy, fmt.Sprint(err), nil
	})
	for _, step := range []struct {
		body string
		want []string
	}{{gateTemplate, []string{finishedGate}}, {ungateTemplate, []string{}}} {
		if err := patch(step.body, false); err != nil {
			t.Fatalf("the keeper's patch %s: %v", step.body, err)
		}
		if got := templateGates(t, cs, ns, "alpha-worker"); !cmp.Equal(got, step.want) {
			t.Fatalf("after %s the template's gates are %v, want %v", step.body, got, step.want)
		}
	}
	if got := outcomeOf(patch(image("attacker.example/other:1"), false)); got != byPolicy {
		t.Errorf("an image change of the template with the policy: %s, want %s", got, byPolicy)
	}

	pod, err := cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "gated", Labels: map[string]string{"training.kubeflow.org/job-name": "alpha", "training.kubeflow.org/replica-type": "worker"}},
		Spec: corev1.PodSpec{ServiceAccountName: "alpha-tfjob", SchedulingGates: []corev1.PodSchedulingGate{{Name: finishedGate}},
			Containers: []corev1.Container{{Name: "main", Image: "tfgen.test/none:1"}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = keeper.CoreV1().Pods(ns).Patch(ctx, pod.Name, types.StrategicMergePatchType,
		[]byte(`{"spec":{"containers":[{"name":"main","image":"attacker.example/own:1"}]}}`), metav1.PatchOptions{})
	if got := outcomeOf(err); got != byPolicy {
		t.Errorf("an image change of the job's pod: %s (%v), want %s", got, err, byPolicy)
	}
	if _, err := keeper.CoreV1().Pods(ns).Patch(ctx, pod.Name, types.StrategicMergePatchType, []byte(liftPodGate), metav1.PatchOptions{}); err != nil {
		t.Errorf("the keeper lifting the gate of the job's pod: %v", err)
	}
}
