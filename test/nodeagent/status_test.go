package nodeagent

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestPhase: the pod's phase as the kubelet's getPhase gives it; a
// sidecar still running keeps a pod whose main containers ended Running.
func TestPhase(t *testing.T) {
	running := corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
	exited := func(code int32) corev1.ContainerState {
		return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code}}
	}
	backingOff := corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}
	for _, tc := range []struct {
		name        string
		initialized bool
		sidecar     corev1.ContainerState
		main        corev1.ContainerState
		mainFinal   bool
		want        corev1.PodPhase
	}{
		{"initializing", false, running, corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{}}, false, corev1.PodPending},
		{"training", true, running, running, false, corev1.PodRunning},
		{"main ended, sidecar stopping", true, running, exited(0), true, corev1.PodRunning},
		{"main ended, sidecar stopped", true, exited(143), exited(0), true, corev1.PodSucceeded},
		{"main failed, sidecar stopped", true, exited(0), exited(1), true, corev1.PodFailed},
		{"main ended, sidecar between restarts", true, backingOff, exited(0), true, corev1.PodSucceeded},
		{"main to restart, sidecar stopped", true, exited(0), exited(1), false, corev1.PodRunning},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sidecar := &ctr{spec: &corev1.Container{Name: "sidecar"}, sidecar: true, final: tc.sidecar.Terminated != nil,
				status: corev1.ContainerStatus{Name: "sidecar", State: tc.sidecar}}
			if tc.sidecar.Waiting != nil {
				sidecar.status.LastTerminationState = exited(1)
			}
			main := &ctr{spec: &corev1.Container{Name: "main"}, final: tc.mainFinal, status: corev1.ContainerStatus{Name: "main", State: tc.main}}
			r := &podRun{initCtrs: []*ctr{sidecar}, ctrs: []*ctr{main}, initialized: tc.initialized, ip: "10.88.0.2"}
			var s corev1.PodStatus
			r.fillStatus(&s)
			if s.Phase != tc.want {
				t.Errorf("phase %s, want %s", s.Phase, tc.want)
			}
		})
	}
}
