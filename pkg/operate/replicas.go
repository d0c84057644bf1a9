package operate

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/values"
)

// Replica is one replica as `tfgen status` shows it: the record its
// supervisor keeps on its pod, merged with the pod's status.
type Replica struct {
	// name is TYPE-INDEX (worker-0).
	Name string `json:"name"`
	// type is the lowercase replica type.
	Type string `json:"type"`
	// index is the replica's ordinal.
	Index int32 `json:"index"`
	// state is the supervisor's (Running, Restarting, Succeeded, Failed,
	// Stopped, Idle); empty before its supervisor started. A replica in
	// the job's succeeded set with no record is Succeeded.
	State record.State `json:"state,omitempty"`
	// restarts of the training process in this pod, from the
	// supervisor, else the kubelet's restart count of the training
	// container.
	Restarts int32 `json:"restarts"`
	// lastExitCode of the training process.
	LastExitCode *int32 `json:"lastExitCode,omitempty"`
	// reason: the training container's waiting reason (ErrImagePull,
	// CrashLoopBackOff), else the supervisor's, else its last
	// termination's.
	Reason string `json:"reason,omitempty"`
	// pod of the replica, when there is one.
	Pod string `json:"pod,omitempty"`
	// phase of the pod (Terminating once it is being deleted).
	Phase string `json:"phase,omitempty"`
	// node the pod is bound to.
	Node string `json:"node,omitempty"`
}

// Replicas returns the job's replicas, sorted by type and index: those
// its StatefulSets want, those with a pod (found by the job-name and
// replica-type labels), and, once the job has ended, those it had. A
// replica without a pod is shown as the job's status says: among the
// succeeded, among the failures, or stopped by the clean pod policy.
func (c *Client) Replicas(ctx context.Context, j *Job) ([]Replica, error) {
	pods, err := c.pods(ctx, j)
	if err != nil {
		return nil, err
	}
	sets, err := c.statefulSets(ctx, j.Namespace, j.Name)
	if err != nil {
		return nil, err
	}
	byName := map[string]*Replica{}
	add := func(t string, i int32) *Replica {
		k := replicaName(t, i)
		if byName[k] == nil {
			byName[k] = &Replica{Name: k, Type: t, Index: i}
		}
		return byName[k]
	}
	for _, s := range sets {
		t := s.Labels[LabelReplicaType]
		for i := int32(0); s.Spec.Replicas != nil && i < *s.Spec.Replicas && t != ""; i++ {
			add(t, i)
		}
	}
	for i := range pods {
		p := &pods[i]
		t := p.Labels[LabelReplicaType]
		idx, err := cluster.Ordinal(p.Name)
		if t == "" || err != nil {
			continue
		}
		r := add(t, idx)
		rec, supervised := record.ReplicaFromAnnotations(p.Annotations)
		if supervised {
			r.State, r.Restarts, r.LastExitCode, r.Reason = rec.State, rec.Restarts, rec.LastExitCode, rec.Reason
		}
		mergePod(r, p, trainingContainer(j, t, p), supervised)
	}
	// Replicas whose pods are gone: every one once the job ended, and the
	// finished ones a StatefulSet gave back while it ran.
	for t, n := range j.Desired() {
		for i := range n {
			if j.Status.Ended() || j.Status.Finished(t, i) {
				add(t, i)
			}
		}
	}
	for _, r := range byName {
		if r.State != "" {
			continue
		}
		f := j.Status.Failures[r.Name]
		switch {
		case j.Status.HasSucceeded(r.Type, r.Index):
			r.State = record.StateSucceeded
		case f != nil:
			r.State, r.LastExitCode, r.Reason, r.Restarts = record.StateFailed, f.ExitCode, f.Reason, f.Restarts
		case j.Status.HasFailed(r.Type, r.Index):
			r.State = record.StateFailed
		case r.Pod == "" && j.Status.Ended() && slices.Contains(j.Status.Stop, r.Type):
			r.State, r.Reason = record.StateStopped, "JobEnded"
		}
	}
	out := make([]Replica, 0, len(byName))
	for _, r := range byName {
		out = append(out, *r)
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Type != out[b].Type {
			return out[a].Type < out[b].Type
		}
		return out[a].Index < out[b].Index
	})
	return out, nil
}

// mergePod adds what pod p says to r; the supervisor's counts (on the
// pod's annotations) win over the kubelet's when it wrote them.
func mergePod(r *Replica, p *corev1.Pod, container string, supervised bool) {
	r.Pod, r.Phase, r.Node = p.Name, string(p.Status.Phase), p.Spec.NodeName
	if p.DeletionTimestamp != nil {
		r.Phase = "Terminating"
	}
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name != container {
			continue
		}
		term := cs.State.Terminated
		if term == nil {
			term = cs.LastTerminationState.Terminated
		}
		if !supervised {
			r.Restarts = cs.RestartCount
			if term != nil {
				code := term.ExitCode
				r.LastExitCode = &code
			}
		}
		switch {
		case cs.State.Waiting != nil && cs.State.Waiting.Reason != "":
			r.Reason = cs.State.Waiting.Reason
		case r.Reason == "" && term != nil:
			r.Reason = term.Reason
		}
	}
}

// pods returns the job's pods.
func (c *Client) pods(ctx context.Context, j *Job) ([]corev1.Pod, error) {
	sel := labels.SelectorFromSet(labels.Set{LabelJobName: j.Name}).String()
	list, err := c.Kube.CoreV1().Pods(j.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, fmt.Errorf("list pods of job %s: %w", j.Name, err)
	}
	return list.Items, nil
}

// trainingContainer names the training container of type t's pods: as
// the templates choose it from spec.json, else pod's first container that
// is not the supervisor.
func trainingContainer(j *Job, t string, pod *corev1.Pod) string {
	if s := j.spec(t); s != nil {
		ps := &s.Template.Spec
		if i := values.TrainingContainer(j.Spec.Framework(), ps); i >= 0 {
			return ps.Containers[i].Name
		}
	}
	if pod != nil {
		for _, c := range pod.Spec.Containers {
			if c.Name != SupervisorContainer {
				return c.Name
			}
		}
	}
	return ""
}

// parseReplica splits TYPE-INDEX (worker-2, Worker-2) into a lowercase
// type and an index.
func parseReplica(s string) (string, int32, error) {
	i := strings.LastIndexByte(s, '-')
	n, err := cluster.Ordinal(s)
	if i <= 0 || err != nil {
		return "", 0, fmt.Errorf("replica %q: want TYPE-INDEX, such as worker-0", s)
	}
	return strings.ToLower(s[:i]), n, nil
}

// sortReplicas sorts TYPE-INDEX names by type, then index.
func sortReplicas(names []string) {
	sort.Slice(names, func(a, b int) bool {
		ta, ia, _ := parseReplica(names[a])
		tb, ib, _ := parseReplica(names[b])
		if ta != tb {
			return ta < tb
		}
		return ia < ib
	})
}
