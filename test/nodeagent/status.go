package nodeagent

import (
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
)

// writeStatuses writes the pod's status whenever it changed, and once more
// when done is closed.
func (r *podRun) writeStatuses(done <-chan struct{}) {
	defer close(r.statusRun)
	for {
		select {
		case <-r.dirty:
			r.writeStatus()
		case <-done:
			r.writeStatus()
			return
		}
	}
}

func (r *podRun) writeStatus() {
	ctx := r.a.ctx
	first := true
	err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		r.mu.Lock()
		if r.isGone {
			r.mu.Unlock()
			return nil
		}
		p := r.latest.DeepCopy()
		r.mu.Unlock()
		if !first {
			var err error
			if p, err = r.a.cs.CoreV1().Pods(r.pod.Namespace).Get(ctx, r.pod.Name, metav1.GetOptions{}); err != nil {
				return err
			}
			if p.UID != r.pod.UID {
				return nil
			}
		}
		first = false
		r.mu.Lock()
		r.fillStatus(&p.Status)
		r.mu.Unlock()
		_, err := r.a.cs.CoreV1().Pods(r.pod.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{})
		return err
	})
	if err != nil && !apierrors.IsNotFound(err) && ctx.Err() == nil {
		r.logf("update status: %v", err)
	}
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
