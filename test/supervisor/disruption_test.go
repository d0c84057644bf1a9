package supervisor

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/tfgen/tfgen/pkg/record"
)

// Flags under which any counted failure would fail the job: no restart
// left for the replica or the job.
var noRestartLeft = []string{"TFSUPERVISOR_RESTART_POLICY=ExitCode", "TFSUPERVISOR_MAX_RESTARTS=0", "TFSUPERVISOR_BACKOFF_LIMIT=0"}

// replace deletes pod now (its node gone, or its deletion done) and
// creates the replica's new pod, as the StatefulSet controller does.
func (j *job) replace(pod string) {
	j.T.Helper()
	if err := j.Client.CoreV1().Pods(j.Namespace).Delete(j.T.Context(), pod, *metav1.NewDeleteOptions(0)); err != nil {
		j.T.Fatal(err)
	}
	j.pod(pod)
}

// finishAfterDisruption runs the replica's new pod to success in wrap
// mode and checks that the disruption counted for nothing.
func (j *job) finishAfterDisruption() {
	j.T.Helper()
	cmd := j.supervisor("j-worker-0", j.cp.Kubeconfig(), "run", "--", "true")
	cmd.Env = append(cmd.Env, noRestartLeft...)
	p := start(j.T, cmd)
	s := j.WaitStatus("the job to end", (*record.Status).Ended)
	if !s.IsTrue(record.JobSucceeded) || s.Restarts != 0 || len(s.Failures) != 0 {
		j.T.Errorf("after the disruption: conditions %+v, restarts %d, failures %v; want success with nothing counted", s.Conditions, s.Restarts, s.Failures)
	}
	p.stop()
}

// TestDisruptionWrapMode: the kubelet stops a deleted, evicted or
// preempted pod's containers with SIGTERM: the supervisor stops the
// training process and records it Stopped, not failed, with no restart
// left; a node lost takes the supervisor with it, unheard. Either way the
// replica's new pod trains, and nothing was counted.
func TestDisruptionWrapMode(t *testing.T) {
	for _, how := range []string{"SIGTERM", "node lost"} {
		t.Run(how, func(t *testing.T) {
			j := newJob(t, "worker:1:2222", map[string]int32{"worker": 1})
			j.keeperEnv(noRestartLeft)
			j.pod("j-worker-0")
			ready := filepath.Join(t.TempDir(), "ready")
			if err := syscall.Mkfifo(ready, 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := j.supervisor("j-worker-0", j.cp.Kubeconfig(), "run", "--", "sh", "-c", `echo $$ > "$READY"; exec sleep 600`)
			cmd.Env = append(cmd.Env, append(noRestartLeft, "READY="+ready)...)
			p := start(t, cmd)
			pid := readPID(t, ready)
			j.WaitRecords("the worker to run", []string{"j-worker-0"}, func(r record.Replica) bool { return r.State == record.StateRunning })
			if how == "SIGTERM" {
				if code := p.stop(); code != 143 {
					t.Errorf("exit code %d, want 143\n%s", code, p.out)
				}
				if r := j.Record("j-worker-0"); r.State != record.StateStopped || r.Reason != "Terminated" {
					t.Errorf("record %+v, want Stopped (Terminated)", r)
				}
			} else {
				p.cmd.Process.Signal(syscall.SIGSTOP)
				syscall.Kill(-pid, syscall.SIGKILL)
				p.kill()
			}
			if s := j.Status(); s.Ended() || s.Restarts != 0 {
				t.Fatalf("after %s: conditions %+v, restarts %d", how, s.Conditions, s.Restarts)
			}
			j.replace("j-worker-0")
			j.finishAfterDisruption()
		})
	}
}

// TestDisruptionSidecarMode: the training container exits 137 while its
// pod is being deleted (also what preemption and node loss do), evicted
// through the Eviction API, or evicted by the kubelet (phase Failed,
// DisruptionTarget): the sidecar records it Stopped, not failed, with no
// restart left, and the replica's new pod trains.
func TestDisruptionSidecarMode(t *testing.T) {
	for _, how := range []string{"delete", "evict", "kubelet eviction"} {
		t.Run(how, func(t *testing.T) {
			j := newJob(t, "worker:1:2222", map[string]int32{"worker": 1})
			j.keeperEnv(noRestartLeft)
			w := &replicaIn{j: j, pod: "j-worker-0", mode: "watch", env: noRestartLeft}
			w.start("")
			j.WaitRecords("the worker to run", []string{"j-worker-0"}, func(r record.Replica) bool { return r.State == record.StateRunning })
			ctx := t.Context()
			switch how {
			case "delete":
				err := j.Client.CoreV1().Pods(j.Namespace).Delete(ctx, "j-worker-0", metav1.DeleteOptions{})
				if err != nil {
					t.Fatal(err)
				}
			case "evict":
				err := j.Client.CoreV1().Pods(j.Namespace).EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "j-worker-0", Namespace: j.Namespace}})
				if err != nil {
					t.Fatal(err)
				}
			}
			// The kubelet kills the container after the grace period.
			err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
				p, err := j.Client.CoreV1().Pods(j.Namespace).Get(ctx, "j-worker-0", metav1.GetOptions{})
				if err != nil {
					return err
				}
				killed := terminated(137, 0)
				killed.Terminated.Reason = "Error"
				p.Status.ContainerStatuses[0].State, p.Status.ContainerStatuses[0].Ready = killed, false
				if how == "kubelet eviction" {
					p.Status.Phase, p.Status.Reason = corev1.PodFailed, "Evicted"
					p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
						Reason: "TerminationByKubelet", LastTransitionTime: metav1.NewTime(time.Now())})
				}
				_, err = j.Client.CoreV1().Pods(j.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			j.WaitRecords("the sidecar to record the stop", []string{"j-worker-0"}, func(r record.Replica) bool { return r.State != "" && r.State != record.StateRunning })
			if r := j.Record("j-worker-0"); r.State != record.StateStopped || r.Reason != "Disrupted" {
				t.Errorf("record %+v, want Stopped (Disrupted)", r)
			}
			if s := j.Status(); s.Ended() || s.Restarts != 0 {
				t.Fatalf("after the disruption: conditions %+v, restarts %d", s.Conditions, s.Restarts)
			}
			w.p.stop()
			j.replace("j-worker-0")
			j.finishAfterDisruption()
		})
	}
}

// TestOOMCappedByBackoffLimit: an OOM kill (137) is retryable under
// ExitCode, and backoffLimit still caps it (kubeflow/common#167), in wrap
// and sidecar mode.
func TestOOMCappedByBackoffLimit(t *testing.T) {
	for _, mode := range []string{"run", "watch"} {
		t.Run(mode, func(t *testing.T) {
			j := newJob(t, "worker:1:2222", map[string]int32{"worker": 1})
			env := []string{"TFSUPERVISOR_RESTART_POLICY=ExitCode", "TFSUPERVISOR_BACKOFF_LIMIT=2"}
			j.keeperEnv(env)
			w := &replicaIn{j: j, pod: "j-worker-0", mode: mode, env: env}
			w.start(`kill -9 $$`)
			if mode == "watch" {
				for n := range int32(3) {
					oom := terminated(137, n)
					oom.Terminated.Reason = "OOMKilled"
					last := corev1.ContainerState{}
					if n > 0 {
						last = terminated(137, n-1)
					}
					w.k.set(n, oom, last)
					if n < 2 {
						j.WaitStatus("the restart counted", func(s *record.Status) bool { return s.Restarts == n+1 })
						w.k.set(n+1, running(), oom)
					}
				}
			}
			s := j.WaitStatus("the job to fail", (*record.Status).Ended)
			if c := s.Condition(record.JobFailed); c == nil || c.Reason != "BackoffLimitExceeded" || s.Restarts != 2 {
				t.Errorf("conditions %+v, restarts %d: want BackoffLimitExceeded after 2", s.Conditions, s.Restarts)
			}
		})
	}
}
