package nodeagent

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/util/retry"
)

// writeStatuses writes the pod's status whenever it changed since the
// last write, and once more when done is closed. A change that a write
// already carried (it came while the write waited its turn) is not
// written again: the kubelet's status manager reads and patches a pod
// only when the status it has is newer than the one it synced.
func (r *podRun) writeStatuses(done <-chan struct{}) {
	defer close(r.statusRun)
	for {
		select {
		case <-r.dirty:
			if r.version.Load() != r.synced {
				r.writeStatus()
			}
		case <-done:
			r.writeStatus()
			return
		}
	}
}

// writeStatus writes the pod's status as the kubelet's status manager
// does: it reads the pod, and patches the difference into its status
// (strategic merge, with the pod's UID as a precondition), so a writer of
// the pod's metadata does not make it conflict. A pod gone or replaced
// under the same name is left alone.
func (r *podRun) writeStatus() {
	ctx := r.a.ctx
	pods := r.a.cs.CoreV1().Pods(r.pod.Namespace)
	err := retry.OnError(retry.DefaultBackoff, func(err error) bool { return !apierrors.IsNotFound(err) && ctx.Err() == nil }, func() error {
		r.mu.Lock()
		gone := r.isGone
		r.mu.Unlock()
		if gone {
			return nil
		}
		p, err := pods.Get(ctx, r.pod.Name, metav1.GetOptions{})
		if err != nil || p.UID != r.pod.UID {
			return err
		}
		status := *p.Status.DeepCopy()
		version := r.version.Load() // before the fill: a later change writes again
		r.mu.Lock()
		r.fillStatus(&status)
		r.mu.Unlock()
		patch, err := statusPatch(p.UID, p.Status, status)
		if err == nil && string(patch) != "{}" {
			_, err = pods.Patch(ctx, r.pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
		}
		if err == nil {
			r.synced = version
		}
		return err
	})
	if err != nil && !apierrors.IsNotFound(err) && ctx.Err() == nil {
		r.logf("patch status: %v", err)
	}
}

// statusPatch is the kubelet's patch from old to new (its
// statusutil.PatchPodStatus): a two-way strategic merge patch of the
// status, with the UID the pod must still have.
func statusPatch(uid types.UID, old, new corev1.PodStatus) ([]byte, error) {
	oldData, err := json.Marshal(corev1.Pod{Status: old})
	if err != nil {
		return nil, err
	}
	newData, err := json.Marshal(corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: uid}, Status: new})
	if err != nil {
		return nil, err
	}
	return strategicpatch.CreateTwoWayMergePatch(oldData, newData, corev1.Pod{})
}

// fillStatus sets s from the containers' states; r.mu is held.
func (r *podRun) fillStatus(s *corev1.PodStatus) {
	s.HostIP, s.HostIPs = NodeIP, []corev1.HostIP{{IP: NodeIP}}
	s.PodIP, s.PodIPs = r.ip, []corev1.PodIP{{IP: r.ip}}
	s.StartTime = &r.startTime
	s.InitContainerStatuses = statuses(r.initCtrs)
	s.ContainerStatuses = statuses(r.ctrs)
	ready := r.initialized
	everStarted, live, failed := true, false, false
	for _, c := range r.ctrs {
		st := c.status
		ready = ready && st.Ready
		if st.State.Waiting != nil && st.LastTerminationState.Terminated == nil {
			everStarted = false
		}
		if !c.final {
			live = true
		} else if st.State.Terminated != nil && st.State.Terminated.ExitCode != 0 {
			failed = true
		}
	}
	// As the kubelet's getPhase, a running sidecar keeps the pod Running
	// (and holding its requests) after the main containers ended, until
	// it has stopped too.
	for _, c := range r.initCtrs {
		if c.sidecar && c.status.State.Running != nil {
			live = true
		}
	}
	switch {
	case r.initFailed:
		s.Phase = corev1.PodFailed
	case !r.initialized || !everStarted:
		s.Phase = corev1.PodPending
	case live:
		s.Phase = corev1.PodRunning
	case failed:
		s.Phase = corev1.PodFailed
	default:
		s.Phase = corev1.PodSucceeded
	}
	setCondition(s, corev1.PodReadyToStartContainers, true, "")
	setCondition(s, corev1.PodInitialized, r.initialized, "ContainersNotInitialized")
	setCondition(s, corev1.ContainersReady, ready, "ContainersNotReady")
	setCondition(s, corev1.PodReady, ready, "ContainersNotReady")
}

func statuses(cs []*ctr) []corev1.ContainerStatus {
	out := make([]corev1.ContainerStatus, len(cs))
	for i, c := range cs {
		out[i] = *c.status.DeepCopy()
	}
	return out
}

func setCondition(s *corev1.PodStatus, typ corev1.PodConditionType, ok bool, reason string) {
	status := corev1.ConditionFalse
	if ok {
		status, reason = corev1.ConditionTrue, ""
	}
	for i := range s.Conditions {
		if c := &s.Conditions[i]; c.Type == typ {
			if c.Status != status {
				c.LastTransitionTime = metav1.Now()
			}
			c.Status, c.Reason = status, reason
			return
		}
	}
	s.Conditions = append(s.Conditions, corev1.PodCondition{Type: typ, Status: status, Reason: reason, LastTransitionTime: metav1.Now()})
}
