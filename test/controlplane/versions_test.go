package controlplane_test

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// start starts a control plane of its own for t, stopped when t ends.
func start(t *testing.T, opts controlplane.Options) *controlplane.ControlPlane {
	t.Helper()
	cp, err := controlplane.Start(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cp.Stop)
	t.Logf("Kubernetes %s control plane started in %s", cp.KubeVersion(), cp.StartTime().Round(time.Millisecond))
	return cp
}

// TestKube134ControlPlaneSchedulesStatefulSetPods: the oldest minor's
// API server, controller-manager and scheduler (Options.KubeVersion)
// start with this package's flags and work together.
func TestKube134ControlPlaneSchedulesStatefulSetPods(t *testing.T) {
	cp := start(t, controlplane.Options{KubeVersion: "1.34", ControllerManager: true, Scheduler: true})
	if v := cp.KubeVersion(); !strings.HasPrefix(v, "v1.34.") {
		t.Fatalf("the API server is %s, want 1.34", v)
	}
	statefulSetPodsScheduled(t, cp)
}

// TestUnknownFeatureGateStopsAnOlderMinor: a gate the minor does not know
// (the Workload API's, new in 1.35) is a start error that names it.
func TestUnknownFeatureGateStopsAnOlderMinor(t *testing.T) {
	_, err := controlplane.Start(t.Context(), controlplane.Options{KubeVersion: "1.34",
		FeatureGates: controlplane.WorkloadAPI.FeatureGates, RuntimeConfig: controlplane.WorkloadAPI.RuntimeConfig})
	if err == nil || !strings.Contains(err.Error(), "GenericWorkload") {
		t.Fatalf("Start of 1.34 with the GenericWorkload gate: %v, want an error naming the gate", err)
	}
	t.Logf("Start of 1.34 with the GenericWorkload gate: %v", err)
}

// TestKubeVersionOutsideTheRange: a minor there are no binaries of.
func TestKubeVersionOutsideTheRange(t *testing.T) {
	_, err := controlplane.Start(t.Context(), controlplane.Options{KubeVersion: "1.33"})
	if err == nil || !strings.Contains(err.Error(), "Kubernetes 1.33") {
		t.Fatalf("Start of 1.33: %v, want an error naming it", err)
	}
}

// TestKube134KubeletRunsPods: the 1.34 kubelet (NodeOptions.KubeletVersion)
// registers with the 1.34 control plane as Kubernetes 1.34 and runs a
// StatefulSet's pod (the node's pause image) to Ready.
func TestKube134KubeletRunsPods(t *testing.T) {
	cp := start(t, controlplane.Options{KubeVersion: "1.34", Node: &controlplane.NodeOptions{KubeletVersion: "1.34"}})
	cs := cp.Client()
	ctx := t.Context()
	nd, err := cs.CoreV1().Nodes().Get(ctx, controlplane.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v := nd.Status.NodeInfo.KubeletVersion; !strings.HasPrefix(v, "v1.34.") {
		t.Fatalf("Node %s: kubelet %s, want 1.34", nd.Name, v)
	}
	ns := harness.Namespace(t, cs, "cp-kubelet", nil)
	labels := map[string]string{"app": "p"}
	sts := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: appsv1.StatefulSetSpec{
			Replicas:    new(int32(1)),
			ServiceName: "p",
			Selector:    &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "pause", Image: controlplane.PauseImage, ImagePullPolicy: corev1.PullNever,
				}}},
			},
		},
	}
	began := time.Now()
	if _, err := cs.AppsV1().StatefulSets(ns).Create(ctx, sts, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "pod p-0 Ready on "+controlplane.NodeName, func(ctx context.Context) (bool, string, error) {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, "p-0", metav1.GetOptions{})
		if err != nil {
			return false, err.Error(), nil
		}
		if p.Spec.NodeName != controlplane.NodeName {
			return false, "not bound", nil
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				return true, "", nil
			}
		}
		return false, string(p.Status.Phase), nil
	})
	t.Logf("pod p-0 Ready on the 1.34 kubelet %s after its StatefulSet was created", time.Since(began).Round(time.Millisecond))
}
