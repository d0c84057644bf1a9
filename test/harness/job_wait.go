package harness

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/tfgen/tfgen/pkg/record"
)

// WaitStatus waits until the job's status satisfies cond, and returns
// that status.
func (j *Job) WaitStatus(what string, cond func(*record.Status) bool) *record.Status {
	j.T.Helper()
	var got *record.Status
	j.waitConfigMap(what, j.Name, func(data map[string]string) bool {
		s, err := record.Parse(data)
		if err == nil && cond(s) {
			got = s
		}
		return got != nil
	}, func() string { return "status.json " + j.StatusJSON() })
	if !j.Started.IsZero() {
		j.T.Logf("%s after %v", what, time.Since(j.Started).Round(time.Millisecond))
	}
	return got
}

// WaitLogs waits until the data of the job's logs ConfigMap satisfies
// cond.
func (j *Job) WaitLogs(what string, cond func(data map[string]string) bool) {
	j.T.Helper()
	var seen []string
	j.waitConfigMap(what, record.LogsName(j.Name), func(data map[string]string) bool {
		seen = slices.Sorted(maps.Keys(data))
		return cond(data)
	}, func() string { return fmt.Sprintf("output of %v; status.json %s", seen, j.StatusJSON()) })
}

// waitConfigMap waits until the data of the job's ConfigMap name
// satisfies cond.
func (j *Job) waitConfigMap(what, name string, cond func(map[string]string) bool, seen func() string) {
	j.T.Helper()
	cms := j.Client.CoreV1().ConfigMaps(j.Namespace)
	c := collection[*corev1.ConfigMap]{
		list: func(ctx context.Context, opts metav1.ListOptions) ([]*corev1.ConfigMap, string, error) {
			l, err := cms.List(ctx, opts)
			if err != nil {
				return nil, "", err
			}
			return pointers(l.Items), l.ResourceVersion, nil
		},
		watch: cms.Watch,
		opts:  metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()},
	}
	waitUntil(j, what, c, func(_ map[string]*corev1.ConfigMap, told []*corev1.ConfigMap) bool {
		for _, cm := range told {
			if cm.Name == name && cond(cm.Data) {
				return true
			}
		}
		return false
	}, seen)
}

// WaitReplicas waits until the job's StatefulSets' replicas, by type, are
// want.
func (j *Job) WaitReplicas(want map[string]int32) {
	j.T.Helper()
	sets := j.Client.AppsV1().StatefulSets(j.Namespace)
	c := collection[*appsv1.StatefulSet]{
		list: func(ctx context.Context, opts metav1.ListOptions) ([]*appsv1.StatefulSet, string, error) {
			l, err := sets.List(ctx, opts)
			if err != nil {
				return nil, "", err
			}
			return pointers(l.Items), l.ResourceVersion, nil
		},
		watch: sets.Watch,
	}
	got := map[string]int32{}
	waitUntil(j, fmt.Sprintf("replicas %v", want), c, func(all map[string]*appsv1.StatefulSet, _ []*appsv1.StatefulSet) bool {
		clear(got)
		for _, s := range all {
			if typ, ok := j.replicaType(s.Spec.Selector); ok && s.Spec.Replicas != nil {
				got[typ] = *s.Spec.Replicas
			}
		}
		return maps.Equal(got, want)
	}, func() string { return fmt.Sprint(got) })
}

// pods lists and watches the job's pods.
func (j *Job) pods() collection[*corev1.Pod] {
	pods := j.Client.CoreV1().Pods(j.Namespace)
	return collection[*corev1.Pod]{
		list: func(ctx context.Context, opts metav1.ListOptions) ([]*corev1.Pod, string, error) {
			l, err := pods.List(ctx, opts)
			if err != nil {
				return nil, "", err
			}
			return pointers(l.Items), l.ResourceVersion, nil
		},
		watch: pods.Watch,
		opts:  j.podOptions(),
	}
}

// WaitPods waits until the job's pods are exactly names.
func (j *Job) WaitPods(names ...string) {
	j.T.Helper()
	want := slices.Sorted(slices.Values(names))
	var got []string
	waitUntil(j, fmt.Sprintf("pods %v", want), j.pods(), func(all map[string]*corev1.Pod, _ []*corev1.Pod) bool {
		got = slices.Sorted(maps.Keys(all))
		return slices.Equal(got, want)
	}, func() string { return fmt.Sprint(got) })
}

// WaitNodes waits until each of pods (of the job's) is bound to a node,
// and returns each one's node (spec.nodeName).
func (j *Job) WaitNodes(pods ...string) map[string]string {
	j.T.Helper()
	nodes := map[string]string{}
	var waiting []string
	waitUntil(j, fmt.Sprintf("pods %v on nodes", pods), j.pods(), func(all map[string]*corev1.Pod, _ []*corev1.Pod) bool {
		clear(nodes)
		waiting = waiting[:0]
		for _, name := range pods {
			switch p := all[name]; {
			case p == nil:
				waiting = append(waiting, name+": no pod")
			case p.Spec.NodeName == "":
				waiting = append(waiting, name+": "+unscheduled(p))
			default:
				nodes[name] = p.Spec.NodeName
			}
		}
		return len(nodes) == len(pods)
	}, func() string { return fmt.Sprintf("on nodes %v; waiting %v", nodes, waiting) })
	return nodes
}

// unscheduled says why the scheduler has not bound pod, as its
// PodScheduled condition does.
func unscheduled(pod *corev1.Pod) string {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			return c.Reason + ": " + c.Message
		}
	}
	return "not scheduled yet"
}

// WaitRecord waits until the replica's record on pod satisfies cond.
func (j *Job) WaitRecord(pod string, cond func(record.Replica) bool) {
	j.T.Helper()
	j.WaitRecords(pod+"'s record", []string{pod}, cond)
}

// WaitRecords waits until the record on each of pods (of the job's) has
// satisfied cond, each at some moment of the wait.
func (j *Job) WaitRecords(what string, pods []string, cond func(record.Replica) bool) {
	j.T.Helper()
	left := map[string]bool{}
	for _, p := range pods {
		left[p] = true
	}
	last := map[string]*corev1.Pod{}
	waitUntil(j, what, j.pods(), func(all map[string]*corev1.Pod, told []*corev1.Pod) bool {
		last = all
		for _, p := range told {
			if r := onPod(p); left[p.Name] && cond(r) {
				delete(left, p.Name)
			}
		}
		return len(left) == 0
	}, func() string {
		names := slices.Sorted(maps.Keys(left))
		var some []string
		for _, name := range names[:min(len(names), 3)] {
			if p := last[name]; p == nil {
				some = append(some, name+": no pod")
			} else {
				r := onPod(p)
				some = append(some, fmt.Sprintf("%s: %+v", name, r))
			}
		}
		return fmt.Sprintf("%d of %d pods left (%s)", len(names), len(pods), strings.Join(some, "; "))
	})
}

// waitUntil waits until done holds for c's objects (see until), and fails
// j.T with what and seen() once j.Timeout has passed.
func waitUntil[T object](j *Job, what string, c collection[T], done func(map[string]T, []T) bool, seen func() string) {
	j.T.Helper()
	if j.Timeout <= 0 {
		j.T.Fatalf("waiting for %s: job %s/%s has no Timeout", what, j.Namespace, j.Name)
	}
	ctx, cancel := context.WithTimeout(j.T.Context(), j.Timeout)
	defer cancel()
	if err := until(ctx, c, done); err != nil {
		j.T.Fatalf("waiting for %s: gave up after %v: %v; last seen: %s", what, j.Timeout, err, seen())
	}
}

// WaitPodsWhere waits until done holds for the job's pods (by name); done
// also says what it saw, for the failure message.
func (j *Job) WaitPodsWhere(what string, done func(map[string]*corev1.Pod) (bool, string)) {
	j.T.Helper()
	var seen string
	waitUntil(j, what, j.pods(), func(all map[string]*corev1.Pod, _ []*corev1.Pod) bool {
		ok, s := done(all)
		seen = s
		return ok
	}, func() string { return seen })
}
