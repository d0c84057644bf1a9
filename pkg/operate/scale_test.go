package operate

import (
	"errors"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/record"
)

// scaleCluster holds job j's record and its workers' StatefulSet, whose
// updates fail with refuse(n) for the nth.
func scaleCluster(t *testing.T, refuse func(n int) error) (*Client, *Job, *fake.Clientset) {
	t.Helper()
	raw, err := (&record.Status{}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns"}, Data: map[string]string{record.DataKey: raw}}
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "j-worker", Namespace: "ns",
		Labels: map[string]string{LabelInstance: "j", LabelManagedBy: ManagedBy, LabelReplicaType: "worker"}},
		Spec: appsv1.StatefulSetSpec{Replicas: new(int32(2))}}
	cs := fake.NewClientset(cm, sts)
	updates := 0
	cs.PrependReactor("update", "statefulsets", func(k8stesting.Action) (bool, k8sruntime.Object, error) {
		updates++
		if err := refuse(updates); err != nil {
			return true, nil, err
		}
		return false, nil, nil
	})
	j := &Job{Namespace: "ns", Name: "j", Status: &record.Status{}, Spec: testjob.New("j").Replica(job.Worker, 2).Job()}
	return &Client{Kube: cs}, j, cs
}

// TestScaleRetriesConflicts: the StatefulSet is read and written again for
// as long as another writer comes first (five times here, past client-go's
// DefaultBackoff); any other refusal ends the scale at once.
func TestScaleRetriesConflicts(t *testing.T) {
	conflict := apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "statefulsets"}, "j-worker", errors.New("changed"))
	c, j, cs := scaleCluster(t, func(n int) error {
		if n <= 5 {
			return conflict
		}
		return nil
	})
	if _, err := c.Scale(t.Context(), j, "worker", 3); err != nil {
		t.Fatal(err)
	}
	sts, err := cs.AppsV1().StatefulSets("ns").Get(t.Context(), "j-worker", metav1.GetOptions{})
	if err != nil || *sts.Spec.Replicas != 3 {
		t.Errorf("StatefulSet %+v, %v: want 3 replicas", sts.Spec.Replicas, err)
	}

	c, j, _ = scaleCluster(t, func(n int) error {
		if n == 1 {
			return apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "statefulsets"}, "j-worker", errors.New("no rights"))
		}
		t.Errorf("update %d after a refusal", n)
		return nil
	})
	if _, err := c.Scale(t.Context(), j, "worker", 3); err == nil || !strings.Contains(err.Error(), "no rights") {
		t.Errorf("Scale after Forbidden: %v", err)
	}
}
