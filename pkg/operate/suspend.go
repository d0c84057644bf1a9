package operate

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tfgen/tfgen/pkg/record"
)

// Suspend suspends job j as Kubeflow does: the Suspended condition turns
// True, Running and Restarting False (the supervisors then stop their
// training processes); then every StatefulSet of the job is scaled to zero. The
// record, its spec and the other objects stay. A job already suspended
// is scaled to zero again (which finishes an interrupted suspend) and
// already is true.
func (c *Client) Suspend(ctx context.Context, j *Job) (already bool, err error) {
	if err := notEnded(j, "suspend"); err != nil {
		return false, err
	}
	already = j.Suspended()
	now := c.now()
	reason, msg := j.Kind()+"Suspended", fmt.Sprintf("%s %s is suspended.", j.Kind(), j.Name)
	_, err = Store(c.Kube, j.Namespace, j.Name).Update(ctx, func(s *record.Status) error {
		if s.Ended() {
			return endedError(j.Name, s, "suspend")
		}
		if s.IsTrue(record.JobSuspended) {
			return record.ErrNoChange
		}
		setFalse(s, record.JobRunning, reason, msg, now)
		setFalse(s, record.JobRestarting, reason, msg, now)
		s.SetCondition(record.JobSuspended, reason, msg, now)
		for _, rs := range s.ReplicaStatuses {
			rs.Active = 0 // every pod goes
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	sets, err := c.statefulSets(ctx, j.Namespace, j.Name)
	if err != nil {
		return false, err
	}
	for _, s := range sets {
		if err := c.scaleSet(ctx, j.Namespace, s.Name, 0); err != nil {
			return false, err
		}
	}
	return already, nil
}

// Resume resumes suspended job j: every StatefulSet is scaled back to
// the job's counts (Job.Desired), then the Suspended condition turns
// False and startTime restarts, as Kubeflow does (the active deadline
// counts from it). It returns the counts.
func (c *Client) Resume(ctx context.Context, j *Job) (map[string]int32, error) {
	if err := notEnded(j, "resume"); err != nil {
		return nil, err
	}
	if !j.Suspended() {
		return nil, fmt.Errorf("job %s is not suspended (it is %s)", j.Name, j.State())
	}
	want := j.Desired()
	sets, err := c.statefulSets(ctx, j.Namespace, j.Name)
	if err != nil {
		return nil, err
	}
	for _, s := range sets {
		n, ok := want[s.Labels[LabelReplicaType]]
		if !ok {
			return nil, fmt.Errorf("statefulset %s: job %s has no replica type %q", s.Name, j.Name, s.Labels[LabelReplicaType])
		}
		if err := c.scaleSet(ctx, j.Namespace, s.Name, n); err != nil {
			return nil, err
		}
	}
	now := c.now()
	reason, msg := j.Kind()+"Resumed", fmt.Sprintf("%s %s is resumed.", j.Kind(), j.Name)
	_, err = Store(c.Kube, j.Namespace, j.Name).Update(ctx, func(s *record.Status) error {
		if s.Condition(record.JobSuspended) == nil {
			mt := record.NewTime(now)
			s.Conditions = append(s.Conditions, record.Condition{Type: record.JobSuspended, Status: record.ConditionFalse,
				Reason: reason, Message: msg, LastUpdateTime: mt, LastTransitionTime: mt})
		} else {
			setFalse(s, record.JobSuspended, reason, msg, now)
		}
		if s.StartTime != nil {
			mt := record.NewTime(now)
			s.StartTime = &mt
		}
		return nil
	})
	return want, err
}

// setFalse turns condition t False with reason and message, if it is True.
func setFalse(s *record.Status, t record.ConditionType, reason, msg string, now time.Time) {
	c := s.Condition(t)
	if c == nil || c.Status == record.ConditionFalse {
		return
	}
	mt := record.NewTime(now)
	c.Status, c.Reason, c.Message, c.LastUpdateTime, c.LastTransitionTime = record.ConditionFalse, reason, msg, mt, mt
}

// notEnded refuses an operation on a job that succeeded or failed.
func notEnded(j *Job, op string) error {
	if j.Status.Ended() {
		return endedError(j.Name, j.Status, op)
	}
	return nil
}

func endedError(name string, s *record.Status, op string) error {
	return fmt.Errorf("job %s has %s: there is nothing to %s", name, strings.ToLower(string(s.Phase())), op)
}

// statefulSets returns the StatefulSets of job name's replica types (not
// its keeper's), sorted by name.
func (c *Client) statefulSets(ctx context.Context, ns, name string) ([]appsv1.StatefulSet, error) {
	list, err := c.Kube.AppsV1().StatefulSets(ns).List(ctx, metav1.ListOptions{LabelSelector: JobSelector(name) + "," + LabelReplicaType})
	if err != nil {
		return nil, fmt.Errorf("list statefulsets of job %s: %w", name, err)
	}
	sort.Slice(list.Items, func(a, b int) bool { return list.Items[a].Name < list.Items[b].Name })
	return list.Items, nil
}

// scaleSet sets StatefulSet name's replicas through its scale subresource.
func (c *Client) scaleSet(ctx context.Context, ns, name string, n int32) error {
	patch := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, n)
	_, err := c.Kube.AppsV1().StatefulSets(ns).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}, "scale")
	if err != nil {
		return fmt.Errorf("scale statefulset %s to %d: %w", name, n, err)
	}
	return nil
}
