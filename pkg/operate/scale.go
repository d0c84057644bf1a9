package operate

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/pkg/kube"
	"github.com/tfgen/tfgen/pkg/record"
)

// Scaled says what Scale did.
type Scaled struct {
	// Type scaled, lowercase.
	Type string
	// From and To are the counts before and after.
	From, To int32
	// Templates lists the StatefulSets whose pod template changed: those
	// of sidecar-mode replicas, whose TF_CONFIG is rendered into the
	// template. Their StatefulSets update OnDelete (so that the keeper's
	// gate on a template reaches only pods made again): Scale deletes
	// their pods, and the controller makes them again from the new
	// template. Wrap-mode replicas build TF_CONFIG from the record at run
	// time: their pods stay.
	Templates []string
}

// Scale sets the number of replicas of lowercase type t of job j to n:
// within the job's minInstances and maxInstances (DRAGON's) for workers,
// and only while the job runs (not suspended, not ended). It records the
// new layout in the job's status (layout, layoutGeneration), from which
// the supervisors build TF_CONFIG at run time and the keeper keeps the
// StatefulSet's replicas, then sets the StatefulSet's replicas; the pod
// templates stay as rendered, but for sidecar-mode replicas, whose
// TF_CONFIG is in the template.
func (c *Client) Scale(ctx context.Context, j *Job, t string, n int32) (*Scaled, error) {
	if err := notEnded(j, "scale"); err != nil {
		return nil, err
	}
	if j.Suspended() {
		return nil, fmt.Errorf("job %s is suspended: resume it (tfgen resume %s) before resizing it", j.Name, j.Name)
	}
	if j.spec(t) == nil {
		return nil, fmt.Errorf("job %s has no %s replicas to scale", j.Name, t)
	}
	if err := j.checkRange(t, n); err != nil {
		return nil, err
	}
	res := &Scaled{Type: t, From: j.Desired()[t], To: n}
	if _, err := Store(c.Kube, j.Namespace, j.Name).Update(ctx, func(s *record.Status) error {
		switch {
		case s.Ended():
			return endedError(j.Name, s, "scale")
		case s.IsTrue(record.JobSuspended):
			return fmt.Errorf("job %s is suspended: resume it (tfgen resume %s) before resizing it", j.Name, j.Name)
		}
		if s.Layout == nil {
			s.Layout = map[string]int32{}
		}
		s.Layout[t] = n
		s.LayoutGeneration++
		return nil
	}); err != nil {
		return nil, err
	}
	sets, err := c.statefulSets(ctx, j.Namespace, j.Name)
	if err != nil {
		return nil, err
	}
	for _, s := range sets {
		var changed bool
		err := kube.DefaultRetry.Do(ctx, func(ctx context.Context) error {
			cur, err := c.Kube.AppsV1().StatefulSets(j.Namespace).Get(ctx, s.Name, metav1.GetOptions{})
			if err != nil {
				return kube.Final(err)
			}
			if changed, err = rescaleSidecars(&cur.Spec.Template.Spec, t, n); err != nil {
				return kube.Final(err)
			}
			own := cur.Labels[LabelReplicaType] == t && (cur.Spec.Replicas == nil || *cur.Spec.Replicas != n)
			if own {
				cur.Spec.Replicas = &n
			}
			if !changed && !own {
				return nil
			}
			_, err = c.Kube.AppsV1().StatefulSets(j.Namespace).Update(ctx, cur, metav1.UpdateOptions{})
			return conflictsOnly(err)
		}, nil)
		if err != nil {
			return nil, fmt.Errorf("scale job %s: statefulset %s: %w", j.Name, s.Name, err)
		}
		if changed {
			if err := c.deletePods(ctx, j.Namespace, s.Name); err != nil {
				return nil, fmt.Errorf("scale job %s: %w", j.Name, err)
			}
			res.Templates = append(res.Templates, s.Name)
		}
	}
	return res, nil
}

// deletePods deletes the pods of StatefulSet name, which its controller
// makes again from its current template.
func (c *Client) deletePods(ctx context.Context, ns, name string) error {
	sts, err := c.Kube.AppsV1().StatefulSets(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("statefulset %s: %w", name, err)
	}
	sel, err := metav1.LabelSelectorAsSelector(sts.Spec.Selector)
	if err != nil {
		return fmt.Errorf("statefulset %s: %w", name, err)
	}
	err = c.Kube.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return fmt.Errorf("delete the pods of statefulset %s for its new template: %w", name, err)
	}
	return nil
}

// conflictsOnly marks err final unless it is a conflict: a read, modify
// and write is tried again, with the object read again, only when another
// writer came first (the StatefulSet controller's status, the keeper), as
// often as it takes.
func conflictsOnly(err error) error {
	if err == nil || apierrors.IsConflict(err) {
		return err
	}
	return kube.Final(err)
}

// checkRange refuses a worker count outside minInstances..maxInstances.
func (j *Job) checkRange(t string, n int32) error {
	if n < 0 {
		return fmt.Errorf("cannot scale %s of job %s to %d replicas", t, j.Name, n)
	}
	if j.Spec.Kueue() {
		// Kueue admits the job's pods as one group of the rendered
		// size: it deletes a pod beyond it, and cannot make the
		// workload again (after an eviction) with fewer.
		return fmt.Errorf("job %s is admitted by Kueue as one group of its rendered size: it cannot be resized; delete it and apply it again with other replicas", j.Name)
	}
	lo, hi := j.Spec.MinInstances, j.Spec.MaxInstances
	if t != "worker" || ((lo == nil || n >= *lo) && (hi == nil || n <= *hi)) {
		return nil
	}
	switch {
	case lo != nil && hi != nil:
		return fmt.Errorf("job %s runs %d to %d workers (its minInstances and maxInstances), not %d", j.Name, *lo, *hi, n)
	case lo != nil:
		return fmt.Errorf("job %s runs at least %d workers (its minInstances), not %d", j.Name, *lo, n)
	default:
		return fmt.Errorf("job %s runs at most %d workers (its maxInstances), not %d", j.Name, *hi, n)
	}
}
