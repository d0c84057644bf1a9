package operate

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Workloads is Kueue's Workload resource. A job under Kueue is one
// workload named like the job: its pods' group (templates/statefulsets.yaml).
var Workloads = schema.GroupVersionResource{Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: "workloads"}

// Admission states, as `tfgen status` and `tfgen list` show them.
const (
	// AdmissionWaiting: Kueue has made no workload yet; it makes it once
	// every pod of the job exists, gated.
	AdmissionWaiting = "Waiting"
	// AdmissionQueued: the workload waits in its queue for quota.
	AdmissionQueued = "Queued"
	// AdmissionReserved: quota is reserved, admission checks are pending.
	AdmissionReserved = "QuotaReserved"
	// AdmissionAdmitted: the job's pods may run.
	AdmissionAdmitted = "Admitted"
	// AdmissionEvicted: Kueue evicted the workload (preempted, or its
	// pods not Ready in time under waitForPodsReady): its pods are
	// removed and it waits in its queue again, after a backoff for the
	// latter.
	AdmissionEvicted = "Evicted"
	// AdmissionReleased: the job's pods are gone, and with them its
	// workload (the job ended or is suspended).
	AdmissionReleased = "Released"
	// AdmissionUnknown: the workload could not be read.
	AdmissionUnknown = "Unknown"
)

// Admission is what Kueue says of a job it admits, from the job's
// workload.
type Admission struct {
	// queue is the LocalQueue the job is in.
	Queue string `json:"queue"`
	// clusterQueue that reserved quota for it, once one did.
	ClusterQueue string `json:"clusterQueue,omitempty"`
	// state is one of the Admission* states.
	State string `json:"state"`
	// reason and message of the workload condition that says so.
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	// notReady is Kueue's PodsReady condition while it is False for an
	// admitted job (waitForPodsReady): Kueue evicts the job once it has
	// been so for its timeout (reason WaitForStart) or recoveryTimeout
	// (WaitForRecovery).
	NotReady *metav1.Condition `json:"notReady,omitempty"`
	// requeueAt is when Kueue puts an evicted job back in its queue,
	// after the backoff of a waitForPodsReady eviction.
	RequeueAt *metav1.Time `json:"requeueAt,omitempty"`
	// evictions are Kueue's evictions of the job, by reason, as its Events
	// on the job's workloads tell them (evictions.go).
	Evictions []Eviction `json:"evictions,omitempty"`
}

// workload is the part of a Kueue Workload that admission reads.
type workload struct {
	Spec struct {
		QueueName string `json:"queueName"`
	} `json:"spec"`
	Status struct {
		Conditions []metav1.Condition `json:"conditions"`
		Admission  *struct {
			ClusterQueue string `json:"clusterQueue"`
		} `json:"admission"`
		RequeueState *struct {
			RequeueAt *metav1.Time `json:"requeueAt"`
		} `json:"requeueState"`
	} `json:"status"`
}

// Admission returns job j's admission by Kueue, nil for a job Kueue does
// not admit, with its evictions. A workload that cannot be read (Kueue not
// installed, no right to read it) is AdmissionUnknown with the reason.
func (c *Client) Admission(ctx context.Context, j *Job) *Admission {
	if !j.Spec.Kueue() {
		return nil
	}
	obj, err := c.Dynamic.Resource(Workloads).Namespace(j.Namespace).Get(ctx, j.Name, metav1.GetOptions{})
	var se apierrors.APIStatus
	if errors.As(err, &se) && apierrors.IsNotFound(err) && se.Status().Details != nil && se.Status().Details.Name == j.Name {
		obj, err = nil, nil // no workload; an unserved resource names none
	}
	a := admission(j, obj, err)
	a.Evictions = c.evictions(ctx, j)
	return a
}

// Admissions returns the admission of each job under Kueue among jobs,
// by namespace/name, from one list of namespace ns's workloads (every
// namespace's if "").
func (c *Client) Admissions(ctx context.Context, ns string, jobs []*Job) map[string]*Admission {
	var kueue []*Job
	for _, j := range jobs {
		if j.Spec.Kueue() {
			kueue = append(kueue, j)
		}
	}
	if len(kueue) == 0 {
		return nil
	}
	list, err := c.Dynamic.Resource(Workloads).Namespace(ns).List(ctx, metav1.ListOptions{})
	byName := map[string]*unstructured.Unstructured{}
	if err == nil {
		for i := range list.Items {
			w := &list.Items[i]
			byName[w.GetNamespace()+"/"+w.GetName()] = w
		}
	}
	out := make(map[string]*Admission, len(kueue))
	for _, j := range kueue {
		key := j.Namespace + "/" + j.Name
		out[key] = admission(j, byName[key], err)
	}
	return out
}

// admission reads job j's admission from its workload obj (nil: none),
// or from the error that kept it from being read.
func admission(j *Job, obj *unstructured.Unstructured, err error) *Admission {
	a := &Admission{}
	if sp := j.Spec.RunPolicy.SchedulingPolicy; sp != nil {
		a.Queue = sp.Queue
	}
	switch {
	case err != nil:
		a.State, a.Message = AdmissionUnknown, workloadError(err)
		return a
	case obj == nil && (j.Status.Ended() || j.Suspended()):
		a.State, a.Message = AdmissionReleased, "the job's pods are gone, and with them its Kueue workload"
		return a
	case obj == nil:
		a.State, a.Message = AdmissionWaiting, "Kueue makes the job's workload once every pod of the job exists"
		return a
	}
	var w workload
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &w); err != nil {
		a.State, a.Message = AdmissionUnknown, fmt.Sprintf("workload %s: %v", j.Name, err)
		return a
	}
	if w.Spec.QueueName != "" {
		a.Queue = w.Spec.QueueName
	}
	if w.Status.Admission != nil {
		a.ClusterQueue = w.Status.Admission.ClusterQueue
	}
	cond := func(t string) *metav1.Condition {
		for i := range w.Status.Conditions {
			if w.Status.Conditions[i].Type == t {
				return &w.Status.Conditions[i]
			}
		}
		return nil
	}
	isTrue := func(c *metav1.Condition) bool { return c != nil && c.Status == metav1.ConditionTrue }
	var by *metav1.Condition
	switch reserved := cond("QuotaReserved"); {
	case isTrue(cond("Evicted")):
		a.State, by = AdmissionEvicted, cond("Evicted")
	case isTrue(cond("Admitted")):
		a.State, by = AdmissionAdmitted, cond("Admitted")
	case isTrue(reserved):
		a.State, by = AdmissionReserved, reserved
	default:
		a.State, by = AdmissionQueued, reserved
	}
	if by != nil {
		a.Reason, a.Message = by.Reason, by.Message
	}
	if ready := cond("PodsReady"); a.State == AdmissionAdmitted && ready != nil && ready.Status == metav1.ConditionFalse {
		a.NotReady = ready
	}
	if rs := w.Status.RequeueState; rs != nil && a.State == AdmissionEvicted {
		a.RequeueAt = rs.RequeueAt
	}
	return a
}

// workloadError says why a workload could not be read.
func workloadError(err error) string {
	switch {
	case apierrors.IsNotFound(err):
		return "Kueue's workloads (kueue.x-k8s.io/v1beta2) are not served: is Kueue installed?"
	case apierrors.IsForbidden(err):
		return "no right to read Kueue's workloads: " + err.Error()
	}
	return "read Kueue's workloads: " + err.Error()
}
