package operate

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/record"
)

// View is a job as `tfgen status -o yaml|json` prints it: shaped like a
// Kubeflow TFJob (or MXJob) as `kubectl get tfjob -o yaml` prints it, so
// that scripts written for the operator keep working.
type View struct {
	// apiVersion is kubeflow.org/v1.
	APIVersion string `json:"apiVersion"`
	// kind is TFJob or MXJob.
	Kind string `json:"kind"`
	// metadata of the job.
	Metadata ViewMeta `json:"metadata"`
	// spec is the rendered job (spec.json) in Kubeflow's shape
	// (tfReplicaSpecs, runPolicy, successPolicy...), with the replica
	// counts `tfgen scale` set.
	Spec map[string]any `json:"spec"`
	// status is the record's, with tfgen's additions.
	Status ViewStatus `json:"status"`
}

// ViewMeta is the job's metadata.
type ViewMeta struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	// creationTimestamp is the record ConfigMap's.
	CreationTimestamp record.Time `json:"creationTimestamp,omitzero"`
	// labels and annotations of the job.
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// ViewStatus is the record's status (conditions, replicaStatuses,
// startTime, completionTime, restarts...) plus the job's state and each
// replica. It always has the condition Created, from the record's
// creation on, and an entry in replicaStatuses per replica type.
type ViewStatus struct {
	record.Status `json:",inline"`
	// state sums the job up in one word (Job.State).
	State string `json:"state"`
	// replicas merges each replica's record entry with its pod.
	Replicas []Replica `json:"replicas,omitempty"`
	// admission by Kueue, for a job it admits.
	Admission *Admission `json:"admission,omitempty"`
}

// metaKeys are the canonical job's fields that go to metadata, not spec.
var metaKeys = []string{"name", "namespace", "labels", "annotations"}

// View returns job j's view, reading its pods and StatefulSets.
func (c *Client) View(ctx context.Context, j *Job) (*View, error) {
	reps, err := c.Replicas(ctx, j)
	if err != nil {
		return nil, err
	}
	v, err := NewView(j, reps)
	if err != nil {
		return nil, err
	}
	v.Status.Admission = c.Admission(ctx, j)
	return v, nil
}

// NewView returns job j's view with replicas reps.
func NewView(j *Job, reps []Replica) (*View, error) {
	spec, err := j.kubeflowSpec()
	if err != nil {
		return nil, err
	}
	status := *j.Status.DeepCopy()
	if status.Condition(record.JobCreated) == nil {
		// The keeper writes Created when the first replica starts; the
		// objects exist from the record's creation on.
		at := record.NewTime(j.Created)
		created := record.Condition{Type: record.JobCreated, Status: record.ConditionTrue, Reason: j.Kind() + "Created",
			Message: fmt.Sprintf("%s %s/%s is created.", j.Kind(), j.Namespace, j.Name), LastUpdateTime: at, LastTransitionTime: at}
		status.Conditions = append([]record.Condition{created}, status.Conditions...)
	}
	everyType(&status, j.Spec)
	return &View{
		APIVersion: "kubeflow.org/v1",
		Kind:       j.Kind(),
		Metadata: ViewMeta{Name: j.Name, Namespace: j.Namespace, CreationTimestamp: record.NewTime(j.Created),
			Labels: j.Spec.Labels, Annotations: j.Spec.Annotations},
		Spec:   spec,
		Status: ViewStatus{Status: status, State: j.State(), Replicas: reps},
	}, nil
}

// everyType gives status an entry in replicaStatuses for each replica type
// of the job, empty until the keeper counts one of its replicas, as
// Kubeflow's operator initialises it as soon as it sees a job: scripts
// read .status.replicaStatuses.Worker from the first moment.
func everyType(status *record.Status, spec *job.Job) {
	for t := range spec.Replicas() {
		k := record.KubeflowType(t.Lower())
		if status.ReplicaStatuses[k] != nil {
			continue
		}
		if status.ReplicaStatuses == nil {
			status.ReplicaStatuses = map[string]*record.ReplicaStatus{}
		}
		status.ReplicaStatuses[k] = &record.ReplicaStatus{}
	}
}

// kubeflowSpec returns spec.json without the fields that are metadata, with
// the replica counts the job runs with.
func (j *Job) kubeflowSpec() (map[string]any, error) {
	b, err := json.Marshal(j.Spec)
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", j.Name, err)
	}
	spec := map[string]any{}
	if err := json.Unmarshal(b, &spec); err != nil {
		return nil, fmt.Errorf("job %s: %w", j.Name, err)
	}
	for _, k := range metaKeys {
		delete(spec, k)
	}
	key := "tfReplicaSpecs"
	if j.Spec.Framework() == job.MXNet {
		key = "mxReplicaSpecs"
	}
	specs, _ := spec[key].(map[string]any)
	for t := range j.Spec.Replicas() {
		if n, ok := j.Scaled[t.Lower()]; ok {
			if rs, _ := specs[string(t)].(map[string]any); rs != nil {
				rs["replicas"] = n
			}
		}
	}
	return spec, nil
}

// Watch calls fn with job ns/name now and again after every change of its
// record or of its pods, until fn returns true or an error, or ctx ends.
// A job deleted meanwhile is a *NotFoundError.
func (c *Client) Watch(ctx context.Context, ns, name string, fn func(*Job) (bool, error)) error {
	podSel := labels.SelectorFromSet(labels.Set{LabelJobName: name}).String()
	cmSel := fields.OneTermEqualSelector("metadata.name", name).String()
	for {
		// The pods' resourceVersion is taken first, so that a change
		// after it, even one fn sees, ends the wait below.
		pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: podSel, Limit: 1})
		if err != nil {
			return fmt.Errorf("watch job %s: %w", name, err)
		}
		j, err := c.Get(ctx, ns, name)
		if err != nil {
			return err
		}
		if done, err := fn(j); done || err != nil {
			return err
		}
		cmW, err := c.Kube.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{FieldSelector: cmSel, ResourceVersion: j.ResourceVersion})
		if err != nil {
			return fmt.Errorf("watch job %s: %w", name, err)
		}
		podW, err := c.Kube.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{LabelSelector: podSel, ResourceVersion: pods.ResourceVersion})
		if err != nil {
			cmW.Stop()
			return fmt.Errorf("watch job %s: %w", name, err)
		}
		waitEvent(ctx, cmW, podW)
		cmW.Stop()
		podW.Stop()
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// waitEvent returns at the first event (or end) of a or b, or when ctx
// ends.
func waitEvent(ctx context.Context, a, b watch.Interface) {
	select {
	case <-ctx.Done():
	case <-a.ResultChan():
	case <-b.ResultChan():
	}
}
