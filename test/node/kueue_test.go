package node

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/operate"
	"github.com/tfgen/tfgen/pkg/record"
)

// The suite's cluster runs Kueue v0.17.0 as its release installs it
// (controlplane.Options.Kueue), with waitForPodsReady on as v0.19 has it
// by default, its timeouts short (kueueReadiness): its webhooks see every
// pod and StatefulSet of every test, and the TestKueue tests run jobs
// under it.
// Each of those has a ClusterQueue of its own, with the quota it needs,
// serving the namespaces labelled with its name, each with a LocalQueue
// "q" (kueueQueue).

var (
	clusterQueues   = schema.GroupVersionResource{Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: "clusterqueues"}
	localQueues     = schema.GroupVersionResource{Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: "localqueues"}
	resourceFlavors = schema.GroupVersionResource{Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: "resourceflavors"}
)

const (
	// kueueFlavor is the ResourceFlavor every test's ClusterQueue uses.
	kueueFlavor = "tfgen-test"
	// kueueQueueLabel labels a namespace with the ClusterQueue whose
	// LocalQueue it gets.
	kueueQueueLabel = "tfgen.io/test-cluster-queue"
	// kueueGate is Kueue's scheduling gate on the pods it has not admitted.
	kueueGate = "kueue.x-k8s.io/admission"
)

// kueueRequests is what each training container of a Kueue test asks
// for: with tfsupervisor's own 10m, a pod asks for 60m of CPU.
var kueueRequests = testjob.Container(func(c *corev1.Container) {
	c.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("16Mi")}
})

// kueueQueue is one test's ClusterQueue, named after the test, with CPU
// cpu (memory enough), preempting lower priorities within it.
type kueueQueue struct {
	c    *cluster
	dyn  dynamic.Interface
	name string
}

// newKueueQueue makes the ClusterQueue (and the shared ResourceFlavor).
func (c *cluster) newKueueQueue(t *testing.T, cpu string) *kueueQueue {
	t.Helper()
	dyn, err := dynamic.NewForConfig(c.cp.RestConfig())
	if err != nil {
		t.Fatal(err)
	}
	q := &kueueQueue{c: c, dyn: dyn, name: strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))}
	rf := &unstructured.Unstructured{Object: object{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor",
		"metadata": object{"name": kueueFlavor}}}
	if _, err := dyn.Resource(resourceFlavors).Create(t.Context(), rf, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	cq := &unstructured.Unstructured{Object: object{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
		"metadata": object{"name": q.name},
		"spec": object{
			"namespaceSelector": object{"matchLabels": object{kueueQueueLabel: q.name}},
			"preemption":        object{"withinClusterQueue": "LowerPriority"},
			"resourceGroups":    []any{q.group(cpu)},
		}}}
	if _, err := dyn.Resource(clusterQueues).Create(t.Context(), cq, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = dyn.Resource(clusterQueues).Delete(context.Background(), q.name, metav1.DeleteOptions{})
	})
	return q
}

// group is the ClusterQueue's one resource group, with cpu.
func (q *kueueQueue) group(cpu string) object {
	return object{"coveredResources": []any{"cpu", "memory"}, "flavors": []any{object{"name": kueueFlavor,
		"resources": []any{object{"name": "cpu", "nominalQuota": cpu}, object{"name": "memory", "nominalQuota": "8Gi"}}}}}
}

// setCPU changes the ClusterQueue's CPU quota, again on a conflict with
// Kueue's own writes to it (its finalizer, its status).
func (q *kueueQueue) setCPU(t *testing.T, cpu string) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cq, err := q.dyn.Resource(clusterQueues).Get(t.Context(), q.name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if err := unstructured.SetNestedSlice(cq.Object, []any{q.group(cpu)}, "spec", "resourceGroups"); err != nil {
			return err
		}
		_, err = q.dyn.Resource(clusterQueues).Update(t.Context(), cq, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// startJob starts spec in a fresh namespace served by the ClusterQueue,
// with its LocalQueue q.
func (q *kueueQueue) startJob(t *testing.T, spec jobSpec) *run {
	t.Helper()
	ns := q.c.namespace(t, "kueue", map[string]string{kueueQueueLabel: q.name})
	lq := &unstructured.Unstructured{Object: object{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
		"metadata": object{"name": "q", "namespace": ns}, "spec": object{"clusterQueue": q.name}}}
	if _, err := q.dyn.Resource(localQueues).Namespace(ns).Create(t.Context(), lq, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	r := q.c.render(t, spec, ns)
	r.Started = time.Now()
	r.applied = r.apply()
	return r
}

// usage is the ClusterQueue's reserving and admitted workload counts.
func (q *kueueQueue) usage(ctx context.Context) (reserving, admitted int64, err error) {
	cq, err := q.dyn.Resource(clusterQueues).Get(ctx, q.name, metav1.GetOptions{})
	if err != nil {
		return 0, 0, err
	}
	reserving, _, _ = unstructured.NestedInt64(cq.Object, "status", "reservingWorkloads")
	admitted, _, _ = unstructured.NestedInt64(cq.Object, "status", "admittedWorkloads")
	return reserving, admitted, nil
}

// waitReleased waits until the ClusterQueue holds no quota for anyone.
func (q *kueueQueue) waitReleased(t *testing.T) {
	t.Helper()
	poll(t, "the ClusterQueue's quota released", func(ctx context.Context) (bool, string, error) {
		reserving, admitted, err := q.usage(ctx)
		return reserving == 0 && admitted == 0, fmt.Sprintf("%d reserving, %d admitted", reserving, admitted), err
	})
}

// kueueWorkload is what the tests read of a Kueue Workload.
type kueueWorkload struct {
	Metadata metav1.ObjectMeta `json:"metadata"`
	Spec     struct {
		QueueName string        `json:"queueName"`
		PodSets   []kueuePodSet `json:"podSets"`
	} `json:"spec"`
	Status struct {
		Conditions      []metav1.Condition `json:"conditions"`
		SchedulingStats *struct {
			Evictions []kueueEviction `json:"evictions"`
		} `json:"schedulingStats"`
	} `json:"status"`
}

// kueueEviction counts a workload's evictions for one reason and cause.
type kueueEviction struct {
	Reason          string `json:"reason"`
	UnderlyingCause string `json:"underlyingCause"`
	Count           int32  `json:"count"`
}

// evictions are the workload's evictions so far.
func (w *kueueWorkload) evictions() []kueueEviction {
	if w.Status.SchedulingStats == nil {
		return nil
	}
	return w.Status.SchedulingStats.Evictions
}

// kueuePodSet is one of a workload's pod sets: pods of one shape.
type kueuePodSet struct {
	Name  string `json:"name"`
	Count int32  `json:"count"`
}

// isTrue returns the workload's condition t, if it is True.
func (w *kueueWorkload) isTrue(t string) *metav1.Condition {
	for i, c := range w.Status.Conditions {
		if c.Type == t && c.Status == metav1.ConditionTrue {
			return &w.Status.Conditions[i]
		}
	}
	return nil
}

// pods is the number of pods its pod sets count.
func (w *kueueWorkload) pods() int32 {
	var n int32
	for _, ps := range w.Spec.PodSets {
		n += ps.Count
	}
	return n
}

func (w *kueueWorkload) String() string {
	var conds []string
	for _, c := range w.Status.Conditions {
		conds = append(conds, fmt.Sprintf("%s=%s(%s)", c.Type, c.Status, c.Reason))
	}
	return fmt.Sprintf("workload %s: %d pods in queue %s, %s, evictions %v", w.Metadata.Name, w.pods(), w.Spec.QueueName, strings.Join(conds, " "), w.evictions())
}

// workloads lists the Kueue workloads of the run's namespace.
func (r *run) workloads(ctx context.Context) ([]kueueWorkload, error) {
	dyn, err := dynamic.NewForConfig(r.c.cp.RestConfig())
	if err != nil {
		return nil, err
	}
	list, err := dyn.Resource(operate.Workloads).Namespace(r.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]kueueWorkload, len(list.Items))
	for i := range list.Items {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(list.Items[i].Object, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// waitWorkload waits until the namespace holds exactly one workload, the
// job's, and cond holds for it; it returns the workload.
func (r *run) waitWorkload(what string, cond func(*kueueWorkload) bool) *kueueWorkload {
	r.T.Helper()
	var got *kueueWorkload
	poll(r.T, what, func(ctx context.Context) (bool, string, error) {
		ws, err := r.workloads(ctx)
		if err != nil {
			return false, "", err
		}
		var seen []string
		for i := range ws {
			seen = append(seen, ws[i].String())
		}
		if len(ws) != 1 || ws[0].Metadata.Name != r.Name {
			return false, fmt.Sprintf("workloads %v, want one, %s", seen, r.Name), nil
		}
		got = &ws[0]
		return cond(got), got.String(), nil
	})
	return got
}

// waitNoWorkload waits until the namespace holds no workload.
func (r *run) waitNoWorkload() {
	r.T.Helper()
	poll(r.T, "the job's workload gone", func(ctx context.Context) (bool, string, error) {
		ws, err := r.workloads(ctx)
		return len(ws) == 0 && err == nil, fmt.Sprintf("%d workloads", len(ws)), err
	})
}

// admitted: Kueue admitted the workload.
func admitted(w *kueueWorkload) bool { return w.isTrue("Admitted") != nil }

// queued: Kueue tried the workload and found no quota for it.
func queued(w *kueueWorkload) bool {
	for _, c := range w.Status.Conditions {
		if c.Type == "QuotaReserved" && c.Status == metav1.ConditionFalse && c.Reason == "Pending" {
			return true
		}
	}
	return false
}

// checkHeld checks that every one of the job's n pods exists, gated by
// Kueue, bound to no node, and that no replica has run.
func (r *run) checkHeld(n int) {
	r.T.Helper()
	pods, err := r.Pods(r.T.Context())
	if err != nil {
		r.T.Fatal(err)
	}
	if len(pods) != n {
		r.T.Errorf("pods %v, want %d", podNames(pods), n)
	}
	for _, p := range pods {
		gated := slices.ContainsFunc(p.Spec.SchedulingGates, func(g corev1.PodSchedulingGate) bool { return g.Name == kueueGate })
		if !gated || p.Spec.NodeName != "" || p.Status.Phase != corev1.PodPending {
			r.T.Errorf("pod %s: gated %t, node %q, phase %s; want gated, on no node, Pending", p.Name, gated, p.Spec.NodeName, p.Status.Phase)
		}
	}
	if reps := r.reports(); len(reps) > 0 {
		r.T.Errorf("replicas ran before Kueue admitted the job: %v", reps)
	}
}

// checkOneGroup checks that the workload counts every one of the job's
// n pods, and that each pod's role (its shape) is one of its pod sets.
func (r *run) checkOneGroup(w *kueueWorkload, n int) {
	r.T.Helper()
	if w.pods() != int32(n) {
		r.T.Errorf("%s; want one workload of all %d pods", w, n)
	}
	pods, err := r.Pods(r.T.Context())
	if err != nil {
		r.T.Fatal(err)
	}
	for _, p := range pods {
		role := p.Annotations["kueue.x-k8s.io/role-hash"]
		if !slices.ContainsFunc(w.Spec.PodSets, func(ps kueuePodSet) bool { return ps.Name == role }) {
			r.T.Errorf("pod %s: role %q is none of the workload's pod sets: %s", p.Name, role, w)
		}
	}
}

func podNames(pods []corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}

// kueueJob is a job of a chief, a parameter server and two workers,
// Kueue's in queue q (the job's label, as a TFJob under Kueue has it),
// each container asking for kueueRequests: 240m of CPU in all. The chief
// succeeds once the others have started and the test opens gate-0.
func kueueJob(name string, sidecar bool) jobSpec {
	args := []string{"--wait-for", "worker-0,worker-1,ps-0,gate-0", "--wait-timeout", "10m"}
	return jobSpec{name: name, labels: map[string]string{"kueue.x-k8s.io/queue-name": "q"},
		exits: []string{"ps=block"},
		replicas: []replica{
			{kind: "Chief", n: 1, policy: "Never", sidecar: sidecar, args: args, edits: []testjob.Option{kueueRequests}},
			{kind: "PS", n: 1, policy: "Never", sidecar: sidecar, edits: []testjob.Option{kueueRequests}},
			{kind: "Worker", n: 2, policy: "OnFailure", sidecar: sidecar, edits: []testjob.Option{kueueRequests}},
		}}
}

// finish waits until the job's workers have succeeded, then lets its
// chief succeed, and returns the job's final status.
func (r *run) finish() *record.Status {
	r.T.Helper()
	r.WaitStatus("the workers succeeded", func(s *record.Status) bool { return s.HasSucceeded("worker", 0) && s.HasSucceeded("worker", 1) })
	r.open("gate-0")
	s := r.WaitStatus("the job to end", (*record.Status).Ended)
	if !s.IsTrue(record.JobSucceeded) {
		r.T.Fatalf("job %s failed: %s", r.Name, r.StatusJSON())
	}
	for typ, n := range map[string]int32{"Chief": 1, "Worker": 2} {
		if rs := s.ReplicaStatuses[typ]; rs == nil || rs.Succeeded != n || rs.Failed != 0 || rs.Active != 0 {
			r.T.Errorf("job %s: replicaStatuses[%s] = %+v, want %d succeeded", r.Name, typ, rs, n)
		}
	}
	return s
}

// TestKueueAdmitsTheWholeJob: a job in a queue whose quota (150m) holds
// two of its four pods is one workload of all four, which Kueue does not
// admit: every pod waits gated, none runs, and tfgen status and list say
// it waits in queue q. With the quota raised to a CPU, Kueue admits it
// whole: every replica runs once and the job succeeds; once its pods
// are released, so are its workload and its quota.
func TestKueueAdmitsTheWholeJob(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	q := c.newKueueQueue(t, "150m")
	r := q.startJob(t, kueueJob("whole", false))
	w := r.waitWorkload("the job's workload queued", queued)
	r.checkOneGroup(w, 4)
	r.checkHeld(4)
	if a := r.view().Admission; a == nil || a.State != operate.AdmissionQueued || a.Queue != "q" {
		t.Errorf("tfgen status: admission %+v, want Queued in queue q", a)
	}
	out, _ := r.cli("status", r.Name)
	if !strings.Contains(out, "Admission:") || !strings.Contains(out, "Queued in queue q") {
		t.Errorf("tfgen status does not say the job waits in queue q:\n%s", out)
	}
	if out, _ := r.cli("list"); !strings.Contains(out, "Queued/q") {
		t.Errorf("tfgen list does not say the job is queued in q:\n%s", out)
	}

	q.setCPU(t, "1")
	r.finish()
	want := map[string]int{"chief-0": 1, "ps-0": 1, "worker-0": 1, "worker-1": 1}
	if got := r.runs(); !maps.Equal(got, want) {
		t.Errorf("runs per replica %v, want %v", got, want)
	}
	r.WaitPods()
	r.waitNoWorkload()
	q.waitReleased(t)
	if a := r.view().Admission; a == nil || a.State != operate.AdmissionReleased {
		t.Errorf("tfgen status after the job: admission %+v, want Released", a)
	}
}

// TestKueueOneJobAtATime: two jobs in sidecar mode, in two namespaces
// whose queues share a quota (300m) for one: the first is admitted and
// runs while the second waits, gated; once the first has succeeded and
// released its pods, the second is admitted and succeeds.
func TestKueueOneJobAtATime(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	q := c.newKueueQueue(t, "300m")
	first := q.startJob(t, kueueJob("first", true))
	first.waitWorkload("the first job admitted", admitted)
	first.waitReport(first.Name + "-chief-0")
	second := q.startJob(t, kueueJob("second", true))
	w := second.waitWorkload("the second job queued", queued)
	second.checkOneGroup(w, 4)
	second.checkHeld(4)

	s := first.finish()
	w = second.waitWorkload("the second job admitted", admitted)
	if at := w.isTrue("Admitted").LastTransitionTime.Time; at.Before(s.CompletionTime.Time.Truncate(time.Second)) {
		t.Errorf("the second job was admitted at %v, before the first ended at %v", at, s.CompletionTime.Time)
	}
	second.finish()
	for _, r := range []*run{first, second} {
		want := map[string]int{"chief-0": 1, "ps-0": 1, "worker-0": 1, "worker-1": 1}
		if got := r.runs(); !maps.Equal(got, want) {
			t.Errorf("job %s: runs per replica %v, want %v", r.Name, got, want)
		}
		r.WaitPods()
	}
	q.waitReleased(t)
}

// kueuePriorities are the PriorityClasses of TestKueuePreemption.
var kueuePriorities = map[string]int32{"tfgen-test-low": 100, "tfgen-test-high": 1000}

// TestKueuePreemption: a job of low priority runs (its workers have
// finished, its chief trains on) when one of high priority comes to the
// same quota (300m), which cannot hold both. Kueue evicts the first: its
// pods are removed and made again, gated, and the job is not failed
// (its backoffLimit is 0: a counted restart would fail it). The second
// runs to its end; then Kueue admits the first again, whose chief trains
// again and succeeds, and whose finished workers do not run again.
func TestKueuePreemption(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	for name, value := range kueuePriorities {
		pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}
		if _, err := c.cp.Client().SchedulingV1().PriorityClasses().Create(t.Context(), pc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	q := c.newKueueQueue(t, "300m")
	low := kueueJob("low", false)
	low.runPolicy = job.RunPolicy{BackoffLimit: new(int32(0)), SchedulingPolicy: &job.SchedulingPolicy{PriorityClass: "tfgen-test-low"}}
	lo := q.startJob(t, low)
	lo.waitWorkload("the low job admitted", admitted)
	lo.waitReport(lo.Name + "-chief-0")
	lo.waitReport(lo.Name + "-worker-1")
	lo.waitReport(lo.Name + "-worker-0")

	high := jobSpec{name: "high", labels: map[string]string{"kueue.x-k8s.io/queue-name": "q"},
		runPolicy: job.RunPolicy{SchedulingPolicy: &job.SchedulingPolicy{PriorityClass: "tfgen-test-high"}},
		replicas: []replica{
			{kind: "Chief", n: 1, policy: "Never", args: []string{"--wait-for", "worker-0,gate-0"}, edits: []testjob.Option{kueueRequests}},
			{kind: "Worker", n: 1, policy: "Never", edits: []testjob.Option{kueueRequests}},
		}}
	hi := q.startJob(t, high)
	w := lo.waitWorkload("the low job evicted", func(w *kueueWorkload) bool { return w.isTrue("Evicted") != nil })
	if e := w.isTrue("Evicted"); e.Reason != "Preempted" {
		t.Errorf("the low job evicted for %s: %s, want Preempted", e.Reason, e.Message)
	}
	hi.waitWorkload("the high job admitted", admitted)
	poll(t, "the low job's pods made again, gated", func(ctx context.Context) (bool, string, error) {
		pods, err := lo.Pods(ctx)
		var seen []string
		gated := 0
		for _, p := range pods {
			if slices.ContainsFunc(p.Spec.SchedulingGates, func(g corev1.PodSchedulingGate) bool { return g.Name == kueueGate }) && p.DeletionTimestamp == nil {
				gated++
			}
			seen = append(seen, fmt.Sprintf("%s(%s, gates %v)", p.Name, p.Status.Phase, p.Spec.SchedulingGates))
		}
		return gated == 4, fmt.Sprintf("%s; replicas %v; status %s", strings.Join(seen, " "), lo.Replicas(), lo.StatusJSON()), err
	})
	if a := lo.view().Admission; a == nil || a.State != operate.AdmissionEvicted {
		t.Errorf("tfgen status of the evicted job: admission %+v, want Evicted", a)
	}
	if s := lo.Status(); s.Ended() {
		t.Fatalf("the preempted job ended: %s", lo.StatusJSON())
	}

	hi.open("gate-0")
	if s := hi.WaitStatus("the high job to end", (*record.Status).Ended); !s.IsTrue(record.JobSucceeded) {
		t.Fatalf("the high job failed: %s", hi.StatusJSON())
	}
	lo.waitWorkload("the low job admitted again", admitted)
	// The parameter server serves again before the chief may succeed.
	poll(t, "ps-0 running again", func(context.Context) (bool, string, error) {
		n := len(lo.reports()["ps-0"])
		return n == 2, fmt.Sprintf("%d runs", n), nil
	})
	s := lo.finish()
	if s.Restarts != 0 || len(s.Failures) != 0 {
		t.Errorf("the preempted job counts %d restarts, failures %v; want none", s.Restarts, s.Failures)
	}
	want := map[string]int{"chief-0": 2, "ps-0": 2, "worker-0": 1, "worker-1": 1}
	if got := lo.runs(); !maps.Equal(got, want) {
		t.Errorf("runs per replica of the preempted job %v, want %v", got, want)
	}
	lo.WaitPods()
	hi.WaitPods()
	q.waitReleased(t)
}

// TestKueueSuspendResume: tfgen suspend of a job Kueue admitted removes
// its pods, and with them its workload and its quota; tfgen resume makes
// them again, Kueue admits the job again, and it succeeds.
func TestKueueSuspendResume(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	q := c.newKueueQueue(t, "300m")
	spec := jobSpec{name: "pause", labels: map[string]string{"kueue.x-k8s.io/queue-name": "q"},
		exits:    []string{"worker-0=block,0"},
		replicas: []replica{{kind: "Worker", n: 1, policy: "ExitCode", edits: []testjob.Option{kueueRequests}}}}
	r := q.startJob(t, spec)
	r.waitWorkload("the job admitted", admitted)
	r.waitReport("pause-worker-0")
	if out, code := r.cli("suspend", "pause"); code != 0 {
		t.Fatalf("tfgen suspend exited %d:\n%s", code, out)
	}
	r.WaitPods()
	r.waitNoWorkload()
	q.waitReleased(t)
	if a := r.view().Admission; a == nil || a.State != operate.AdmissionReleased {
		t.Errorf("tfgen status of the suspended job: admission %+v, want Released", a)
	}
	if out, code := r.cli("resume", "pause"); code != 0 {
		t.Fatalf("tfgen resume exited %d:\n%s", code, out)
	}
	r.waitWorkload("the job admitted again", admitted)
	if s := r.WaitStatus("the job to end", (*record.Status).Ended); !s.IsTrue(record.JobSucceeded) {
		t.Fatalf("the job failed: %s", r.StatusJSON())
	}
	if got, want := r.runs(), map[string]int{"worker-0": 2}; !maps.Equal(got, want) {
		t.Errorf("runs per replica %v, want %v", got, want)
	}
	r.WaitPods()
	q.waitReleased(t)
}
