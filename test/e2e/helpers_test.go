package e2e

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// noPods forbids pods in namespace ns (a ResourceQuota of 0 pods), so
// that manifests apply without their StatefulSets starting anything
// (tfjob-large asks for 10,000 workers).
func (c *cluster) noPods(t testing.TB, ns string) {
	t.Helper()
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "no-pods"},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("0")}}}
	if _, err := c.cp.Client().CoreV1().ResourceQuotas(ns).Create(t.Context(), q, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// poll waits for the cluster to reach a state: cond is called every 100ms
// for 2 minutes at most, an error counting as not yet.
var poll = harness.Poller{Interval: 100 * time.Millisecond, Timeout: 2 * time.Minute, RetryErrors: true}.Poll

// installCRDs installs minimal PodGroup CRDs (Volcano's and
// scheduler-plugins'), so that manifests with gang scheduling apply.
func installCRDs(cp *controlplane.ControlPlane) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return harness.InstallCRDs(ctx, cp.RestConfig(), harness.PodGroupCRDs)
}
