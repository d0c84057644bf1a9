package operate

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/tfgen/tfgen/pkg/job"
)

// kueueWorkload is a Workload of namespace ns named name, with conditions
// as type=status:reason, in queue q, reserved by ClusterQueue cq if set.
func kueueWorkload(ns, name, cq string, conds ...[3]string) *unstructured.Unstructured {
	var cs []any
	for _, c := range conds {
		cs = append(cs, map[string]any{"type": c[0], "status": c[1], "reason": c[2], "message": c[0] + " says so",
			"lastTransitionTime": "2026-11-27T00:00:00Z"})
	}
	status := map[string]any{"conditions": cs}
	if cq != "" {
		status["admission"] = map[string]any{"clusterQueue": cq}
	}
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
		"metadata": map[string]any{"name": name, "namespace": ns}, "spec": map[string]any{"queueName": "q"}, "status": status}}
}

// withStatus sets fields of w's status.
func withStatus(w *unstructured.Unstructured, fields map[string]any) *unstructured.Unstructured {
	status := w.Object["status"].(map[string]any)
	for k, v := range fields {
		status[k] = v
	}
	return w
}

// TestAdmission: what tfgen status and list say of a job's admission by
// Kueue, from its workload (or its absence).
func TestAdmission(t *testing.T) {
	at := metav1.Time{Time: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)}
	kueueJob := func(mutate func(*Job)) *Job {
		return testJob(func(j *Job) {
			j.Namespace = "ns"
			j.Spec.Scheduler = &job.SchedulerSpec{Gang: "kueue"}
			j.Spec.RunPolicy.SchedulingPolicy = &job.SchedulingPolicy{Queue: "q"}
			if mutate != nil {
				mutate(j)
			}
		})
	}
	ended := func(j *Job) { j.Status.Finish(true, "JobSucceeded", "", time.Now()) }
	for _, tc := range []struct {
		name     string
		job      *Job
		workload *unstructured.Unstructured
		want     *Admission
	}{
		{name: "not under Kueue", job: testJob(nil)},
		{name: "no workload yet", job: kueueJob(nil),
			want: &Admission{Queue: "q", State: AdmissionWaiting, Message: "Kueue makes the job's workload once every pod of the job exists"}},
		{name: "queued", job: kueueJob(nil), workload: kueueWorkload("ns", "j", "", [3]string{"QuotaReserved", "False", "Pending"}),
			want: &Admission{Queue: "q", State: AdmissionQueued, Reason: "Pending", Message: "QuotaReserved says so"}},
		{name: "admitted", job: kueueJob(nil), workload: kueueWorkload("ns", "j", "cq", [3]string{"QuotaReserved", "True", "QuotaReserved"}, [3]string{"Admitted", "True", "Admitted"}),
			want: &Admission{Queue: "q", ClusterQueue: "cq", State: AdmissionAdmitted, Reason: "Admitted", Message: "Admitted says so"}},
		{name: "quota reserved, checks pending", job: kueueJob(nil), workload: kueueWorkload("ns", "j", "cq", [3]string{"QuotaReserved", "True", "QuotaReserved"}),
			want: &Admission{Queue: "q", ClusterQueue: "cq", State: AdmissionReserved, Reason: "QuotaReserved", Message: "QuotaReserved says so"}},
		{name: "evicted", job: kueueJob(nil), workload: kueueWorkload("ns", "j", "", [3]string{"Admitted", "False", "NoReservation"}, [3]string{"Evicted", "True", "Preempted"}),
			want: &Admission{Queue: "q", State: AdmissionEvicted, Reason: "Preempted", Message: "Evicted says so"}},
		{name: "admitted, pods not all Ready", job: kueueJob(nil),
			workload: kueueWorkload("ns", "j", "cq", [3]string{"QuotaReserved", "True", "QuotaReserved"}, [3]string{"Admitted", "True", "Admitted"}, [3]string{"PodsReady", "False", "WaitForRecovery"}),
			want: &Admission{Queue: "q", ClusterQueue: "cq", State: AdmissionAdmitted, Reason: "Admitted", Message: "Admitted says so",
				NotReady: &metav1.Condition{Type: "PodsReady", Status: "False", Reason: "WaitForRecovery", Message: "PodsReady says so", LastTransitionTime: at}}},
		{name: "admitted, pods Ready", job: kueueJob(nil),
			workload: kueueWorkload("ns", "j", "cq", [3]string{"QuotaReserved", "True", "QuotaReserved"}, [3]string{"Admitted", "True", "Admitted"}, [3]string{"PodsReady", "True", "Started"}),
			want:     &Admission{Queue: "q", ClusterQueue: "cq", State: AdmissionAdmitted, Reason: "Admitted", Message: "Admitted says so"}},
		{name: "evicted by the PodsReady timeout, in backoff", job: kueueJob(nil),
			workload: withStatus(kueueWorkload("ns", "j", "", [3]string{"QuotaReserved", "False", "Pending"}, [3]string{"Evicted", "True", "PodsReadyTimeout"}, [3]string{"PodsReady", "False", "WaitForStart"}),
				map[string]any{"requeueState": map[string]any{"count": int64(2), "requeueAt": "2026-11-27T00:01:00Z"}}),
			want: &Admission{Queue: "q", State: AdmissionEvicted, Reason: "PodsReadyTimeout", Message: "Evicted says so",
				RequeueAt: &metav1.Time{Time: time.Date(2026, 11, 27, 0, 1, 0, 0, time.UTC)}}},
		{name: "ended, pods gone", job: kueueJob(ended),
			want: &Admission{Queue: "q", State: AdmissionReleased, Message: "the job's pods are gone, and with them its Kueue workload"}},
		{name: "another job's workload", job: kueueJob(nil), workload: kueueWorkload("ns", "other", "", [3]string{"Admitted", "True", "Admitted"}),
			want: &Admission{Queue: "q", State: AdmissionWaiting, Message: "Kueue makes the job's workload once every pod of the job exists"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var objs []runtime.Object
			if tc.workload != nil {
				objs = append(objs, tc.workload)
			}
			dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{Workloads: "WorkloadList"}, objs...)
			c := &Client{Dynamic: dyn}
			if diff := cmp.Diff(tc.want, c.Admission(context.Background(), tc.job)); diff != "" {
				t.Errorf("Admission (-want +got):\n%s", diff)
			}
			all := c.Admissions(context.Background(), "", []*Job{tc.job})
			if diff := cmp.Diff(tc.want, all["ns/j"]); diff != "" {
				t.Errorf("Admissions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAdmissionEvictions: a job's evictions by Kueue are counted from the
// Events Kueue records on the job's workloads, those of a workload made
// again (another UID) too, and only those.
func TestAdmissionEvictions(t *testing.T) {
	j := testJob(func(j *Job) {
		j.Namespace = "ns"
		j.Spec.Scheduler = &job.SchedulerSpec{Gang: "kueue"}
		j.Spec.RunPolicy.SchedulingPolicy = &job.SchedulingPolicy{Queue: "q"}
	})
	t0 := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	event := func(name, kind, object, reason, message string, count int32, at time.Time) *corev1.Event {
		return &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
			InvolvedObject: corev1.ObjectReference{APIVersion: "kueue.x-k8s.io/v1beta2", Kind: kind, Namespace: "ns", Name: object},
			Reason:         reason, Message: message, Count: count, LastTimestamp: metav1.NewTime(at)}
	}
	kube := kubefake.NewClientset(
		event("a", "Workload", "j", "EvictedDueToPodsReadyTimeout", "Exceeded the PodsReady timeout ns/j", 1, t0),
		event("b", "Workload", "j", "EvictedDueToPodsReadyTimeout", "Exceeded the PodsReady timeout ns/j (again)", 2, t0.Add(time.Minute)),
		event("c", "Workload", "j", "EvictedDueToPreempted", "Preempted to accommodate a workload", 1, t0.Add(30*time.Second)),
		event("d", "Workload", "j", "Admitted", "Admitted by ClusterQueue cq", 1, t0.Add(2*time.Minute)),
		event("e", "Workload", "other", "EvictedDueToPreempted", "another job's", 1, t0),
		event("f", "Pod", "j", "EvictedDueToPreempted", "not a workload", 1, t0),
	)
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{Workloads: "WorkloadList"})
	c := &Client{Kube: kube, Dynamic: dyn}
	want := []Eviction{
		{Reason: "PodsReadyTimeout", Count: 3, Last: metav1.NewTime(t0.Add(time.Minute)), Message: "Exceeded the PodsReady timeout ns/j (again)"},
		{Reason: "Preempted", Count: 1, Last: metav1.NewTime(t0.Add(30 * time.Second)), Message: "Preempted to accommodate a workload"},
	}
	if diff := cmp.Diff(want, c.Admission(context.Background(), j).Evictions); diff != "" {
		t.Errorf("evictions (-want +got):\n%s", diff)
	}
}

// TestAdmissionUnserved: without Kueue's workloads served, the admission
// is Unknown and says why, for both Admission and Admissions.
func TestAdmissionUnserved(t *testing.T) {
	j := testJob(func(j *Job) {
		j.Namespace = "ns"
		j.Spec.Scheduler = &job.SchedulerSpec{Gang: "kueue"}
		j.Spec.RunPolicy.SchedulingPolicy = &job.SchedulingPolicy{Queue: "q"}
	})
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{Workloads: "WorkloadList"})
	dyn.PrependReactor("*", "workloads", notServed)
	c := &Client{Dynamic: dyn}
	want := &Admission{Queue: "q", State: AdmissionUnknown, Message: "Kueue's workloads (kueue.x-k8s.io/v1beta2) are not served: is Kueue installed?"}
	if diff := cmp.Diff(want, c.Admission(context.Background(), j)); diff != "" {
		t.Errorf("Admission (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, c.Admissions(context.Background(), "ns", []*Job{j})["ns/j"]); diff != "" {
		t.Errorf("Admissions (-want +got):\n%s", diff)
	}
}

// notServed answers as an API server that does not serve the resource.
func notServed(clienttesting.Action) (bool, runtime.Object, error) {
	return true, nil, apierrors.NewNotFound(schema.GroupResource{}, "")
}
