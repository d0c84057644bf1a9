package operate

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/record"
)

// SpecKey is the record ConfigMap's data key that holds the rendered job.
const SpecKey = "spec.json"

// ReplicasAnnotation, on the record ConfigMap of a job an earlier tfgen
// scaled, holds the counts it set, as JSON ({"worker":3}); they override
// spec.json's. tfgen now keeps them in the status (record.Status.Layout),
// which wins.
const ReplicasAnnotation = "tfgen.io/replicas"

// Job is a job as its record ConfigMap holds it.
type Job struct {
	// Namespace and Name of the job (and of its record).
	Namespace, Name string
	// Created is the record's creationTimestamp, the job's age.
	Created time.Time
	// Spec is the rendered job from spec.json.
	Spec *job.Job
	// Status is what the supervisors wrote (zero before any started).
	Status *record.Status
	// Scaled holds the counts a resize set, by lowercase type.
	Scaled map[string]int32
	// ResourceVersion of the record as read.
	ResourceVersion string
}

// State sums the job up in one word, as `kubectl get tfjobs` does:
// Status.Phase(), else Suspended for a job rendered suspended that was
// never resumed, else Created (the objects exist, no replica started).
func (j *Job) State() string {
	if p := j.Status.Phase(); p != "" {
		return string(p)
	}
	if j.renderedSuspended() {
		return string(record.JobSuspended)
	}
	return string(record.JobCreated)
}

// renderedSuspended: rendered with runPolicy.suspend and never resumed.
func (j *Job) renderedSuspended() bool {
	s := j.Spec.RunPolicy.Suspend
	return s != nil && *s && j.Status.Condition(record.JobSuspended) == nil
}

// Suspended reports whether the job is suspended.
func (j *Job) Suspended() bool {
	return !j.Status.Ended() && (j.Status.IsTrue(record.JobSuspended) || j.renderedSuspended())
}

// Kind is TFJob or MXJob, for condition reasons as Kubeflow writes them.
func (j *Job) Kind() string {
	if j.Spec.Framework() == job.MXNet {
		return "MXJob"
	}
	return "TFJob"
}

// Types returns the job's lowercase replica types, sorted: those of the
// spec and any the status knows besides.
func (j *Job) Types() []string {
	seen := map[string]bool{}
	for _, t := range j.Spec.ReplicaTypes() {
		seen[t.Lower()] = true
	}
	for t := range j.Status.Succeeded {
		seen[t] = true
	}
	out := make([]string, 0, len(seen))
	for t := range seen {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Counts returns replicaStatuses' entry for lowercase type t.
func (j *Job) Counts(t string) record.ReplicaStatus {
	if rs := j.Status.ReplicaStatuses[record.KubeflowType(t)]; rs != nil {
		return *rs
	}
	return record.ReplicaStatus{}
}

// Desired returns the replica count of each lowercase type when the job
// runs: spec.json's, overridden by what `tfgen scale` recorded.
func (j *Job) Desired() map[string]int32 {
	out := map[string]int32{}
	for t, s := range j.Spec.Replicas() {
		out[t.Lower()] = s.Count()
	}
	for t, n := range j.Scaled {
		out[t] = n
	}
	return out
}

// spec returns the replica spec of lowercase type t, or nil.
func (j *Job) spec(t string) *job.ReplicaSpec {
	for rt, s := range j.Spec.Replicas() {
		if rt.Lower() == t {
			return s
		}
	}
	return nil
}

// Get reads job ns/name from its record. A namespace without it, or a
// ConfigMap of that name that is no tfgen record, is a *NotFoundError.
func (c *Client) Get(ctx context.Context, ns, name string) (*Job, error) {
	cm, err := c.Kube.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, &NotFoundError{Namespace: ns, Name: name}
	}
	if err != nil {
		return nil, fmt.Errorf("read job %s: %w", name, err)
	}
	if cm.Labels[LabelManagedBy] != ManagedBy || cm.Labels[LabelComponent] != ComponentJob {
		return nil, &NotFoundError{Namespace: ns, Name: name}
	}
	return parseJob(cm)
}

// List returns the jobs of namespace ns (every namespace if ""), sorted
// by namespace and name.
func (c *Client) List(ctx context.Context, ns string) ([]*Job, error) {
	list, err := c.Kube.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{LabelSelector: RecordSelector()})
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	jobs := make([]*Job, 0, len(list.Items))
	for i := range list.Items {
		j, err := parseJob(&list.Items[i])
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, j)
	}
	sort.Slice(jobs, func(a, b int) bool {
		if jobs[a].Namespace != jobs[b].Namespace {
			return jobs[a].Namespace < jobs[b].Namespace
		}
		return jobs[a].Name < jobs[b].Name
	})
	return jobs, nil
}

// FromRecord reads job cm, a record ConfigMap.
func FromRecord(cm *corev1.ConfigMap) (*Job, error) { return parseJob(cm) }

// parseJob reads a record ConfigMap.
func parseJob(cm *corev1.ConfigMap) (*Job, error) {
	j := &Job{Namespace: cm.Namespace, Name: cm.Name, Created: cm.CreationTimestamp.Time, Spec: &job.Job{},
		ResourceVersion: cm.ResourceVersion}
	if raw := cm.Data[SpecKey]; raw != "" {
		if err := json.Unmarshal([]byte(raw), j.Spec); err != nil {
			return nil, fmt.Errorf("job %s: configmap %s: %s: %w", cm.Name, cm.Name, SpecKey, err)
		}
	}
	s, err := record.Parse(cm.Data)
	if err != nil {
		return nil, fmt.Errorf("job %s: configmap %s: %w", cm.Name, cm.Name, err)
	}
	j.Status = s
	if raw := cm.Annotations[ReplicasAnnotation]; raw != "" {
		if err := json.Unmarshal([]byte(raw), &j.Scaled); err != nil {
			return nil, fmt.Errorf("job %s: configmap %s: annotation %s: %w", cm.Name, cm.Name, ReplicasAnnotation, err)
		}
	}
	if len(s.Layout) > 0 && j.Scaled == nil {
		j.Scaled = map[string]int32{}
	}
	maps.Copy(j.Scaled, s.Layout)
	return j, nil
}

// replicaName is "worker-3".
func replicaName(t string, i int32) string { return t + "-" + strconv.Itoa(int(i)) }
