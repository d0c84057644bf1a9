package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// TestAdmissionPolicy: with deploy/admission-policy.yaml (installed for the
// whole suite, so every other test's job also runs under it), a job's
// account may change the labels and annotations of its own pod, with a
// token bound to that pod; not another pod of its job, not another
// workload's pod (which its Role alone would allow), not a pod's spec.
func TestAdmissionPolicy(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	ns := harness.Namespace(t, c.cp.Client(), "policy", nil)
	// The job's account, Role and binding only; the pods are made here and
	// stay Pending (no node matches them): only their objects matter.
	spec := jobSpec{name: "alpha", replicas: []replica{{kind: "Worker", n: 2, policy: "Never"}}}
	bins.kubectl.Must(t, c.cp.Kubeconfig(), bins.tfgen.Must(t, spec.manifest(ns), "render", "-f", "-"), "apply", "-n", ns, "-l", "app.kubernetes.io/component=job", "-f", "-")
	cs := c.cp.Client()
	ctx := t.Context()
	pod := func(name string, labels map[string]string) *corev1.Pod {
		p, err := cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
			Spec: corev1.PodSpec{ServiceAccountName: "alpha-tfjob", NodeSelector: map[string]string{"tfgen.test/none": "none"}, Containers: []corev1.Container{{Name: "main", Image: "tfgen.test/none:1"}}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	jobLabels := map[string]string{"training.kubeflow.org/job-name": "alpha", "training.kubeflow.org/replica-type": "worker"}
	own := pod("alpha-worker-0", jobLabels)
	pod("alpha-worker-1", jobLabels)
	pod("notebook", map[string]string{"app": "notebook"})

	asJob := boundClient(t, c, ns, "alpha-tfjob", own)
	annotate := `{"metadata":{"annotations":{"tfgen.io/state":"Running"}}}`
	// The policy is in force once the API server has loaded it.
	poll(t, "the admission policy in force", func(ctx context.Context) (bool, string, error) {
		_, err := asJob.CoreV1().Pods(ns).Patch(ctx, "notebook", types.MergePatchType, []byte(annotate), metav1.PatchOptions{})
		return err != nil && strings.Contains(err.Error(), "ValidatingAdmissionPolicy"), fmt.Sprint(err), nil
	})
	image := `{"spec":{"containers":[{"name":"main","image":"attacker.example/own:1"}]}}`
	relabel := `{"metadata":{"labels":{"training.kubeflow.org/job-name":"beta"}}}`
	cases := []struct {
		pod, patch string
		allowed    bool
	}{
		{"alpha-worker-0", annotate, true},
		{"alpha-worker-0", image, false},
		{"alpha-worker-0", relabel, false},
		{"alpha-worker-1", annotate, false},
		{"notebook", annotate, false},
		{"notebook", image, false},
	}
	for _, tc := range cases {
		_, err := asJob.CoreV1().Pods(ns).Patch(ctx, tc.pod, types.StrategicMergePatchType, []byte(tc.patch), metav1.PatchOptions{})
		if (err == nil) != tc.allowed {
			t.Errorf("patch %s %s as the job's account: %v, want allowed=%v", tc.pod, tc.patch, err, tc.allowed)
		} else if err != nil && !strings.Contains(err.Error(), "ValidatingAdmissionPolicy") {
			t.Errorf("patch %s %s was refused, but not by the policy: %v", tc.pod, tc.patch, err)
		}
	}
}

// TestAdmissionPolicyEndpointSlices: with --endpoints pod the job's Role
// grants endpointslices create namespace-wide; the policy holds a token
// bound to a pod to that pod's own slice, in its own job's Services.
func TestAdmissionPolicyEndpointSlices(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	ns := harness.Namespace(t, c.cp.Client(), "policy-eps", nil)
	spec := jobSpec{name: "alpha", replicas: []replica{{kind: "Worker", n: 2, policy: "Never"}}}
	bins.kubectl.Must(t, c.cp.Kubeconfig(), bins.tfgen.Must(t, spec.manifest(ns), "render", "-f", "-", "--endpoints", "pod"), "apply", "-n", ns, "-l", "app.kubernetes.io/component=job", "-f", "-")
	cs := c.cp.Client()
	ctx := t.Context()
	own, err := cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "alpha-worker-0",
		Labels: map[string]string{"training.kubeflow.org/job-name": "alpha", "training.kubeflow.org/replica-type": "worker"}},
		Spec: corev1.PodSpec{ServiceAccountName: "alpha-tfjob", NodeSelector: map[string]string{"tfgen.test/none": "none"}, Containers: []corev1.Container{{Name: "main", Image: "tfgen.test/none:1"}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	asJob := boundClient(t, c, ns, "alpha-tfjob", own)
	slice := func(name, service, host string, owned bool) *discoveryv1.EndpointSlice {
		s := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/service-name": service}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.9.8.7"}, Hostname: &host,
				TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: host}}}}
		if owned {
			s.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: own.Name, UID: own.UID}}
		}
		return s
	}
	// The policy is in force once the API server has loaded it.
	poll(t, "the admission policy in force", func(ctx context.Context) (bool, string, error) {
		_, err := asJob.DiscoveryV1().EndpointSlices(ns).Create(ctx, slice("probe", "notebook", own.Name, true), metav1.CreateOptions{})
		return err != nil && strings.Contains(err.Error(), "ValidatingAdmissionPolicy"), fmt.Sprint(err), nil
	})
	cases := []struct {
		why     string
		slice   *discoveryv1.EndpointSlice
		allowed bool
	}{
		{"its own pod's address", slice("own", "alpha-worker", own.Name, true), true},
		{"another pod's address", slice("other", "alpha-worker", "alpha-worker-1", true), false},
		{"not owned by its pod", slice("unowned", "alpha-worker", own.Name, false), false},
		{"another job's Service", slice("beta", "beta-worker", own.Name, true), false},
		{"another workload's Service", slice("notebook", "notebook", own.Name, true), false},
	}
	for _, tc := range cases {
		_, err := asJob.DiscoveryV1().EndpointSlices(ns).Create(ctx, tc.slice, metav1.CreateOptions{})
		if (err == nil) != tc.allowed {
			t.Errorf("%s: %v, want allowed=%v", tc.why, err, tc.allowed)
		} else if err != nil && !strings.Contains(err.Error(), "ValidatingAdmissionPolicy") {
			t.Errorf("%s was refused, but not by the policy: %v", tc.why, err)
		}
	}
}

// boundClient is a client of account in ns with a token bound to pod, as
// a pod's projected token is.
func boundClient(t *testing.T, c *cluster, ns, account string, pod *corev1.Pod) *kubernetes.Clientset {
	t.Helper()
	return tokenClient(t, c.cp, ns, account, pod)
}

// tokenClient is a client of account in ns on cp with a token of its own
// (TokenRequest): bound to pod as a pod's projected token is, or with pod
// nil bound to nothing, as the Secret J-tfjob-token's is.
func tokenClient(t *testing.T, cp *controlplane.ControlPlane, ns, account string, pod *corev1.Pod) *kubernetes.Clientset {
	t.Helper()
	req := &authenticationv1.TokenRequest{}
	if pod != nil {
		req.Spec.BoundObjectRef = &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID}
	}
	tr, err := cp.Client().CoreV1().ServiceAccounts(ns).CreateToken(t.Context(), account, req, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rc := rest.AnonymousClientConfig(cp.RestConfig())
	rc.BearerToken = tr.Status.Token
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}
