package operate

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
)

// Scaled says what Scale did.
type Scaled struct {
	// Type scaled, lowercase.
	Type string
	// From and To are the counts before and after.
	From, To int32
	// Suspended: the job is suspended, so its StatefulSet stays at zero
	// and resume starts To replicas.
	Suspended bool
	// Templates lists the StatefulSets whose pod template changed (their
	// pods are replaced by the StatefulSet controller, one at a time, and
	// start with the new cluster spec).
	Templates []string
}

// Scale sets the number of replicas of lowercase type t of job j to n:
// within the job's minInstances and maxInstances (DRAGON's) for workers;
// it rewrites what the supervisors build the cluster spec from (--roles
// in every StatefulSet's pod template, and the env of sidecar-mode
// containers), sets the StatefulSet's replicas unless the job is
// suspended, and records n in the record's tfgen.io/replicas annotation.
func (c *Client) Scale(ctx context.Context, j *Job, t string, n int32) (*Scaled, error) {
	if err := notEnded(j, "scale"); err != nil {
		return nil, err
	}
	if j.spec(t) == nil {
		return nil, fmt.Errorf("job %s has no %s replicas to scale", j.Name, t)
	}
	if err := j.checkRange(t, n); err != nil {
		return nil, err
	}
	res := &Scaled{Type: t, From: j.Desired()[t], To: n, Suspended: j.Suspended()}
	sets, err := c.statefulSets(ctx, j.Namespace, j.Name)
	if err != nil {
		return nil, err
	}
	for _, s := range sets {
		var changed bool
		err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
			cur, err := c.Kube.AppsV1().StatefulSets(j.Namespace).Get(ctx, s.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if changed, err = rescale(&cur.Spec.Template.Spec, t, n); err != nil {
				return err
			}
			own := cur.Labels[LabelReplicaType] == t && !res.Suspended && (cur.Spec.Replicas == nil || *cur.Spec.Replicas != n)
			if own {
				cur.Spec.Replicas = &n
			}
			if !changed && !own {
				return nil
			}
			_, err = c.Kube.AppsV1().StatefulSets(j.Namespace).Update(ctx, cur, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("scale job %s: statefulset %s: %w", j.Name, s.Name, err)
		}
		if changed {
			res.Templates = append(res.Templates, s.Name)
		}
	}
	return res, c.recordScale(ctx, j, t, n)
}

// checkRange refuses a worker count outside minInstances..maxInstances.
func (j *Job) checkRange(t string, n int32) error {
	if n < 0 {
		return fmt.Errorf("cannot scale %s of job %s to %d replicas", t, j.Name, n)
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

// recordScale stores n for type t in the record's tfgen.io/replicas
// annotation, with the record's resourceVersion.
func (c *Client) recordScale(ctx context.Context, j *Job, t string, n int32) error {
	return retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		cm, err := c.Kube.CoreV1().ConfigMaps(j.Namespace).Get(ctx, j.Name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("record the new count of job %s: %w", j.Name, err)
		}
		scaled := map[string]int32{}
		if raw := cm.Annotations[ReplicasAnnotation]; raw != "" {
			if err := json.Unmarshal([]byte(raw), &scaled); err != nil {
				return fmt.Errorf("job %s: annotation %s: %w", j.Name, ReplicasAnnotation, err)
			}
		}
		scaled[t] = n
		raw, err := json.Marshal(scaled)
		if err != nil {
			return err
		}
		patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
			"resourceVersion": cm.ResourceVersion,
			"annotations":     map[string]string{ReplicasAnnotation: string(raw)}}})
		if err != nil {
			return err
		}
		_, err = c.Kube.CoreV1().ConfigMaps(j.Namespace).Patch(ctx, j.Name, types.MergePatchType, patch, metav1.PatchOptions{})
		return err
	})
}
