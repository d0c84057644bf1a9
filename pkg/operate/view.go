package operate

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/tfgen/tfgen/pkg/record"
)

// View is a job's status as `tfgen status -o yaml|json` prints it.
type View struct {
	// name and namespace of the job.
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	// state sums the job up in one word (Job.State).
	State string `json:"state"`
	// status is the record's, shaped like Kubeflow's TFJob status
	// (conditions, replicaStatuses, startTime, completionTime) plus the
	// job-wide restart count.
	Status record.Status `json:"status"`
	// replicas merges each replica's record entry with its pod.
	Replicas []Replica `json:"replicas,omitempty"`
}

// View returns job j's view, reading its pods and StatefulSets.
func (c *Client) View(ctx context.Context, j *Job) (*View, error) {
	reps, err := c.Replicas(ctx, j)
	if err != nil {
		return nil, err
	}
	return &View{Name: j.Name, Namespace: j.Namespace, State: j.State(), Status: *j.Status.DeepCopy(), Replicas: reps}, nil
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
