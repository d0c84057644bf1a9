package supervisor

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/tfgen/tfgen/pkg/record"
)

// kubelet writes the training container's status the way the kubelet
// does: UpdateStatus with the container's state, last state and restart
// count, next to the sidecar's.
type kubelet struct {
	j   *job
	pod string
}

func (k *kubelet) set(restarts int32, state, last corev1.ContainerState) {
	k.j.T.Helper()
	now := metav1.NewTime(time.Now())
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		p, err := k.j.Client.CoreV1().Pods(k.j.Namespace).Get(k.j.T.Context(), k.pod, metav1.GetOptions{})
		if err != nil {
			return err
		}
		p.Status.Phase = corev1.PodRunning
		p.Status.ContainerStatuses = []corev1.ContainerStatus{
			{Name: "tensorflow", State: state, LastTerminationState: last, RestartCount: restarts, Image: "tf", ImageID: "tf@sha256:1",
				ContainerID: "containerd://tf-" + string(rune('a'+restarts)), Ready: state.Running != nil, Started: new(state.Running != nil)},
			{Name: "tfsupervisor", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}, Image: "sup", ImageID: "sup@sha256:1",
				ContainerID: "containerd://sup", Ready: true, Started: new(true)},
		}
		_, err = k.j.Client.CoreV1().Pods(k.j.Namespace).UpdateStatus(k.j.T.Context(), p, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		k.j.T.Fatal(err)
	}
}

func running() corev1.ContainerState {
	return corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(time.Now())}}
}

func terminated(code int32, restarts int32) corev1.ContainerState {
	reason := map[bool]string{true: "Completed", false: "Error"}[code == 0]
	return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason,
		StartedAt: metav1.NewTime(time.Now()), FinishedAt: metav1.NewTime(time.Now()), ContainerID: "containerd://tf-" + string(rune('a'+restarts))}}
}

// TestSidecar follows a training container through a retryable failure,
// a restart of the sidecar itself, and success.
func TestSidecar(t *testing.T) {
	j := newJob(t, "ps:1:2222,worker:1:2222", map[string]int32{"ps": 1, "worker": 1})
	j.pod("j-worker-0")
	k := &kubelet{j: j, pod: "j-worker-0"}
	flags := []string{"--restart-policy", "ExitCode", "--backoff-limit", "3"}
	j.keeper(flags...)
	watch := func() *proc {
		return start(t, j.supervisor("j-worker-0", j.cp.Kubeconfig(), append([]string{"watch", "--container", "tensorflow"}, flags...)...))
	}
	pod := []string{"j-worker-0"}
	first := watch()
	k.set(0, running(), corev1.ContainerState{})
	j.WaitRecords("the sidecar to see the container run", pod, func(r record.Replica) bool { return r.State == record.StateRunning })
	k.set(0, terminated(137, 0), corev1.ContainerState{}) // OOM-killed: retryable
	j.WaitStatus("the exit to count", func(s *record.Status) bool { return s.Restarts == 1 })
	// The keeper counts the exit from the record on the pod, which the
	// status's watch event may overtake here: wait for the record.
	j.WaitRecords("the exit on the pod", pod, func(r record.Replica) bool { return r.State != "" && r.State != record.StateRunning })
	if r := j.Record("j-worker-0"); r.State != record.StateRestarting || r.LastExitCode == nil || *r.LastExitCode != 137 {
		t.Errorf("after exit 137: %+v", r)
	}
	k.set(1, running(), terminated(137, 0))
	j.WaitRecords("the restart", pod, func(r record.Replica) bool { return r.State == record.StateRunning && r.Restarts == 1 })

	// The sidecar's own container restarts: the new one reads the same
	// exit from lastState and must not count it again.
	first.kill()
	second := watch()
	k.set(1, terminated(0, 1), terminated(137, 0))
	s := j.WaitStatus("the job to succeed", func(s *record.Status) bool { return s.IsTrue(record.JobSucceeded) })
	if s.Restarts != 1 {
		t.Errorf("restarts %d, want 1: an exit was counted twice", s.Restarts)
	}
	j.WaitRecords("the replica's record to say it succeeded after 1 restart", pod, func(r record.Replica) bool {
		return r.State == record.StateSucceeded && r.Restarts == 1
	})
	j.WaitReplicas(map[string]int32{"ps": 0, "worker": 0})
	if code := second.stop(); code != 0 {
		t.Errorf("sidecar exit code %d, want 0\n%s", code, second.out)
	}
}
