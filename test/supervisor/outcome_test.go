package supervisor

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/test/harness"
)

// replicaIn starts pod's supervisor in mode "run" (wrap mode: script is
// the training process) or "watch" (sidecar mode: the stand-in kubelet k
// runs a container that exits with code once the test says so, through
// exit); env holds the job-wide flags.
type replicaIn struct {
	j    *job
	pod  string
	mode string
	env  []string
	p    *proc
	k    *kubelet
}

func (r *replicaIn) start(script string) {
	r.j.pod(r.pod)
	args := []string{"watch", "--container", "tensorflow"}
	if r.mode == "run" {
		args = []string{"run", "--", "sh", "-c", script}
	}
	cmd := r.j.supervisor(r.pod, r.j.cp.Kubeconfig(), args...)
	cmd.Env = append(cmd.Env, r.env...)
	r.p = start(r.j.T, cmd)
	if r.mode == "watch" {
		r.k = &kubelet{j: r.j, pod: r.pod}
		r.k.set(0, running(), corev1.ContainerState{})
	}
}

// exit ends the sidecar-mode container with code (wrap mode: the script
// decides, and the test tells it through a named pipe).
func (r *replicaIn) exit(code int32, fifo string) {
	if r.mode == "watch" {
		r.k.set(0, terminated(code, 0), corev1.ContainerState{})
		return
	}
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		r.j.T.Fatal(err)
	}
	f.WriteString("go\n")
	f.Close()
}

func mkfifo(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "go")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDynamicWorkersBothModes: with enableDynamicWorker (--sparse), a
// worker that fails for good leaves the job running, in wrap and sidecar
// mode alike; the chief (a sidecar-mode replica here) decides.
func TestDynamicWorkersBothModes(t *testing.T) {
	for _, mode := range []string{"run", "watch"} {
		t.Run(mode, func(t *testing.T) {
			j := newJob(t, "chief:1:2222,worker:2:2222", map[string]int32{"chief": 1, "worker": 2})
			env := []string{"TFSUPERVISOR_SPARSE=true"}
			j.keeperEnv(env)
			chief := &replicaIn{j: j, pod: "j-chief-0", mode: "watch", env: env}
			chief.start("")
			fifo := mkfifo(t)
			worker := &replicaIn{j: j, pod: "j-worker-1", mode: mode, env: append(env, "GO="+fifo)}
			worker.start(`read x < "$GO"; exit 1`)
			j.WaitRecords("the worker to run", []string{"j-worker-1"}, func(r record.Replica) bool { return r.State == record.StateRunning })
			worker.exit(1, fifo)
			s := j.WaitStatus("the worker's failure counted", func(s *record.Status) bool {
				return s.Ended() || (s.ReplicaStatuses["Worker"] != nil && s.ReplicaStatuses["Worker"].Failed == 1)
			})
			if s.Ended() {
				t.Fatalf("the job ended at a dynamic worker's failure: %+v", s.Conditions)
			}
			chief.exit(0, "")
			s = j.WaitStatus("the chief to decide", (*record.Status).Ended)
			if !s.IsTrue(record.JobSucceeded) || s.Failures["worker-1"] == nil {
				t.Errorf("conditions %+v, failures %v", s.Conditions, s.Failures)
			}
		})
	}
}

// TestEvaluatorGraceBothModes: the chief succeeds while the evaluator
// runs; the chief's StatefulSet goes to zero, the evaluator is neither
// stopped nor scaled down, finishes, and its success is in the job's
// status, in wrap and sidecar mode alike; then the evaluator's
// StatefulSet goes to zero too.
func TestEvaluatorGraceBothModes(t *testing.T) {
	for _, mode := range []string{"run", "watch"} {
		t.Run(mode, func(t *testing.T) {
			j := newJob(t, "chief:1:2222,evaluator:1:2222", map[string]int32{"chief": 1, "evaluator": 1})
			j.keeper()
			chief := &replicaIn{j: j, pod: "j-chief-0", mode: "watch"}
			chief.start("")
			fifo := mkfifo(t)
			ev := &replicaIn{j: j, pod: "j-evaluator-0", mode: mode, env: []string{"GO=" + fifo}}
			ev.start(`read x < "$GO"; exit 0`)
			// Its supervisor's own word, not the keeper's inference from a
			// pod that runs (the stand-in kubelet's, at once): a supervisor
			// whose first look at the job finds it ended never trains.
			harness.Poller{Interval: 100 * time.Millisecond, Timeout: time.Minute}.Poll(t, "the evaluator's supervisor to say it runs",
				func(ctx context.Context) (bool, string, error) {
					p, err := j.Client.CoreV1().Pods(j.Namespace).Get(ctx, "j-evaluator-0", metav1.GetOptions{})
					if err != nil {
						return false, "", err
					}
					st := p.Annotations[record.AnnotationState]
					return st == string(record.StateRunning), "state " + st, nil
				})
			chief.exit(0, "")
			s := j.WaitStatus("the job to succeed", (*record.Status).Ended)
			if !s.IsTrue(record.JobSucceeded) || s.EvaluatorDeadline == nil || slices.Contains(s.Stop, "evaluator") {
				t.Fatalf("at the chief's success: conditions %+v, stop %v, evaluator deadline %v", s.Conditions, s.Stop, s.EvaluatorDeadline)
			}
			// The chief, finished, gives its pod back; the evaluator keeps its
			// replica while it has time.
			j.WaitReplicas(map[string]int32{"chief": 0, "evaluator": 1})
			ev.exit(0, fifo)
			s = j.WaitStatus("the evaluator's outcome", func(s *record.Status) bool { return slices.Contains(s.Stop, "evaluator") })
			if rs := s.ReplicaStatuses["Evaluator"]; rs == nil || rs.Succeeded != 1 {
				t.Errorf("evaluator status %+v, want 1 succeeded", rs)
			}
			if r := j.Record("j-evaluator-0"); r.State != record.StateSucceeded {
				t.Errorf("evaluator record %+v, want Succeeded", r)
			}
			j.WaitReplicas(map[string]int32{"chief": 0, "evaluator": 0})
		})
	}
}
