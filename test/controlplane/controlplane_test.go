package controlplane_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

func TestMain(m *testing.M) {
	os.Exit(controlplane.Main(m, controlplane.Options{ControllerManager: true, Scheduler: true}))
}

// poll calls cond every 100ms until it is true, fails or a minute has
// passed.
var poll = harness.Poller{Interval: 100 * time.Millisecond, Timeout: time.Minute}.Poll

func TestStatefulSetPodsAreCreatedAndScheduled(t *testing.T) {
	cp := controlplane.Shared(t)
	t.Logf("control plane started in %s", cp.StartTime().Round(time.Millisecond))
	statefulSetPodsScheduled(t, cp)
}

// statefulSetPodsScheduled: on cp, with its controller-manager and
// scheduler, a StatefulSet's two pods are created, found unschedulable
// while there is no Node, and bound to the Node once there is one.
func statefulSetPodsScheduled(t *testing.T, cp *controlplane.ControlPlane) {
	t.Helper()
	cs := cp.Client()
	ns := harness.Namespace(t, cs, "cp-test", nil)
	ctx := t.Context()

	labels := map[string]string{"app": "w"}
	sts := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "w"},
		Spec: appsv1.StatefulSetSpec{
			Replicas:            new(int32(2)),
			ServiceName:         "w",
			PodManagementPolicy: appsv1.ParallelPodManagement,
			Selector:            &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "main", Image: "example.invalid/worker:1", Command: []string{"/bin/true"},
				}}},
			},
		},
	}
	began := time.Now()
	if _, err := cs.AppsV1().StatefulSets(ns).Create(ctx, sts, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// Without a Node the scheduler sees the pods and finds them unschedulable.
	poll(t, "2 unschedulable pods", func(ctx context.Context) (bool, string, error) {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil || len(pods.Items) != 2 {
			return false, "", err
		}
		for _, p := range pods.Items {
			if !hasCondition(p, corev1.PodScheduled, corev1.ConditionFalse, corev1.PodReasonUnschedulable) {
				return false, "", nil
			}
		}
		return true, "", nil
	})
	t.Logf("2 pods created and found unschedulable in %s", time.Since(began).Round(time.Millisecond))

	node := readyNode(ns)
	if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.CoreV1().Nodes().Delete(context.Background(), node.Name, metav1.DeleteOptions{}) })

	poll(t, "both pods bound to "+node.Name, func(ctx context.Context) (bool, string, error) {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil || len(pods.Items) != 2 {
			return false, "", err
		}
		for _, p := range pods.Items {
			if p.Spec.NodeName != node.Name {
				return false, "", nil
			}
		}
		return true, "", nil
	})
	t.Logf("both pods bound %s after the StatefulSet was created", time.Since(began).Round(time.Millisecond))
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, p := range pods.Items {
		names[p.Name] = true
		if len(p.OwnerReferences) != 1 || p.OwnerReferences[0].Kind != "StatefulSet" {
			t.Errorf("pod %s: owner references %v, want the StatefulSet", p.Name, p.OwnerReferences)
		}
	}
	if !names["w-0"] || !names["w-1"] {
		t.Errorf("pods %v, want w-0 and w-1", names)
	}
}

func hasCondition(p corev1.Pod, typ corev1.PodConditionType, status corev1.ConditionStatus, reason string) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == typ && c.Status == status && c.Reason == reason {
			return true
		}
	}
	return false
}

// readyNode is a Node object with capacity and a Ready condition; no kubelet
// stands behind it.
func readyNode(name string) *corev1.Node {
	res := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("4"),
		corev1.ResourceMemory: resource.MustParse("8Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
		Status: corev1.NodeStatus{
			Capacity:    res,
			Allocatable: res,
			Conditions: []corev1.NodeCondition{{
				Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now(),
			}},
		},
	}
}

func TestServiceAccountCredentials(t *testing.T) {
	cp := controlplane.Shared(t)
	cs := cp.Client()
	ns := harness.Namespace(t, cs, "cp-test", nil)
	ctx := t.Context()
	if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx,
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "job"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	path, err := cp.ServiceAccountKubeconfig(ctx, ns, "job")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	sa := kubernetes.NewForConfigOrDie(cfg)
	review, err := sa.AuthenticationV1().SelfSubjectReviews().Create(ctx,
		&authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := review.Status.UserInfo.Username, "system:serviceaccount:"+ns+":job"; got != want {
		t.Errorf("acting as %q, want %q", got, want)
	}
	// No RoleBinding grants it anything: RBAC is in force.
	_, err = sa.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Errorf("listing secrets as the ServiceAccount: err = %v, want Forbidden", err)
	}
}

func TestAdminKubeconfig(t *testing.T) {
	cp := controlplane.Shared(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", cp.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(cfg)
	v, err := cs.Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("kube-apiserver %s", v.GitVersion)
	review, err := cs.AuthenticationV1().SelfSubjectReviews().Create(t.Context(),
		&authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if groups := review.Status.UserInfo.Groups; !slices.Contains(groups, "system:masters") {
		t.Errorf("admin groups %v, want system:masters", groups)
	}
}

// tfgen renders container-level restartPolicyRules (ContainerRestartRules,
// beta and on by default since 1.35): the API server must keep them.
func TestContainerRestartRulesAreKept(t *testing.T) {
	cp := controlplane.Shared(t)
	cs := cp.Client()
	ns := harness.Namespace(t, cs, "cp-test", nil)
	rules := []corev1.ContainerRestartRule{{
		Action: corev1.ContainerRestartRuleActionRestart,
		ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{
			Operator: corev1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42},
		},
	}}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "rules"},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{
				Name: "main", Image: "example.invalid/worker:1",
				RestartPolicy:      new(corev1.ContainerRestartPolicyNever),
				RestartPolicyRules: rules,
			}},
		},
	}
	got, err := cs.CoreV1().Pods(ns).Create(t.Context(), pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rules, got.Spec.Containers[0].RestartPolicyRules); diff != "" {
		t.Errorf("restartPolicyRules after create (-sent +kept):\n%s", diff)
	}
}
