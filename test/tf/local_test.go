package tf

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// epochs and steps are the examples' (--epochs 5, 20 steps each).
const epochs, steps = 5, 20

// finished is the state of a replica that exits 0 by itself but does not
// decide the job's success: Succeeded, or Stopped when it was still
// shutting down (TensorFlow takes a moment after training) when the job
// ended and the clean-pod policy sent it SIGTERM. Its exit code is 0
// either way. (An exit that came before the stop is recorded as it was.)
const finished = "Succeeded|Stopped"

// TestMultiWorkerMirrored: two workers, Keras fit, ring all-reduce.
func TestMultiWorkerMirrored(t *testing.T) {
	r := runLocal(t, venvs.tf, "examples/tf-mwms.yaml", nil)
	if r.code != 0 {
		t.Errorf("exit status %d, want 0", r.code)
	}
	r.wantTable(t, map[string]row{"worker-0": {state: "Succeeded"}, "worker-1": {state: finished}})
	r.wantLines(t, "tfgen: job tf-mwms succeeded: replica worker-0 succeeded")
	res := readResults(t, r.results, "worker-0", "worker-1")
	for _, w := range res {
		if w.ReplicasInSync != 2 || w.Starts != 1 {
			t.Errorf("%s: %d replicas in sync, %d starts; want 2, 1", w.Task, w.ReplicasInSync, w.Starts)
		}
		wantLearned(t, w.Task, w.Losses, epochs)
	}
	// Synchronous training: both saw the same all-reduced losses.
	if a, b := res["worker-0"].Losses, res["worker-1"].Losses; !slices.Equal(a, b) {
		t.Errorf("the workers' losses differ:\n%v\n%v", a, b)
	}
}

// TestTensorBoardCallback: Keras' TensorBoard callback, which needs the
// tensorboard package (TensorFlow 2.21 no longer installs it), writes the
// chief's event files.
func TestTensorBoardCallback(t *testing.T) {
	r := runLocal(t, venvs.tf, "test/tf/testdata/tensorboard.yaml", nil)
	if r.code != 0 {
		t.Errorf("exit status %d, want 0", r.code)
	}
	r.wantTable(t, map[string]row{"worker-0": {state: "Succeeded"}, "worker-1": {state: finished}})
	res := readResults(t, r.results, "worker-0", "worker-1")
	if n := len(res["worker-0"].Losses); n != 2 {
		t.Errorf("worker-0 trained %d epochs, want 2", n)
	}
	events, _ := filepath.Glob(filepath.Join(r.modelDir, "tensorboard", "train", "events.out.tfevents.*"))
	if len(events) == 0 {
		t.Errorf("no event files in %s", filepath.Join(r.modelDir, "tensorboard", "train"))
	}
}

// TestChiefWorkerEvaluator: a chief and a worker train with Keras fit, a
// sidecar evaluator evaluates the chief's checkpoints and finishes.
func TestChiefWorkerEvaluator(t *testing.T) {
	r := runLocal(t, venvs.tf, "examples/tf-mwms-evaluator.yaml", nil)
	if r.code != 0 {
		t.Errorf("exit status %d, want 0", r.code)
	}
	r.wantTable(t, map[string]row{"chief-0": {state: "Succeeded"}, "worker-0": {state: "Succeeded"}, "evaluator-0": {state: "Succeeded"}})
	r.wantLines(t, "tfgen: job tf-mwms-evaluator succeeded: replica chief-0 succeeded")
	res := readResults(t, r.results, "chief-0", "worker-0", "evaluator-0")
	for _, name := range []string{"chief-0", "worker-0"} {
		if w := res[name]; w.ReplicasInSync != 2 {
			t.Errorf("%s: %d replicas in sync, want 2", name, w.ReplicasInSync)
		}
		wantLearned(t, name, res[name].Losses, epochs)
	}
	ev := res["evaluator-0"]
	if len(ev.Evaluations) == 0 {
		t.Fatalf("the evaluator evaluated nothing")
	}
	last := ev.Evaluations[len(ev.Evaluations)-1]
	if last.Step != epochs*steps {
		t.Errorf("the evaluator's last checkpoint is at step %d, want %d (the last epoch's)", last.Step, epochs*steps)
	}
	if !(last.Loss < ev.UntrainedLoss/100) {
		t.Errorf("evaluation loss %g of the last checkpoint, untrained %g: the checkpoints hold no training", last.Loss, ev.UntrainedLoss)
	}
	for i := 1; i < len(ev.Evaluations); i++ {
		if ev.Evaluations[i].Step <= ev.Evaluations[i-1].Step {
			t.Errorf("evaluations out of order: %+v", ev.Evaluations)
		}
	}
}

// TestParameterServer: the chief coordinates two workers with
// ClusterCoordinator, the variables on the parameter server, which is
// stopped with the workers once the chief has succeeded.
func TestParameterServer(t *testing.T) {
	r := runLocal(t, venvs.tf, "examples/tf-ps.yaml", nil)
	if r.code != 0 {
		t.Errorf("exit status %d, want 0", r.code)
	}
	// The servers never finish: SIGTERM kills them (143).
	r.wantTable(t, map[string]row{"chief-0": {state: "Succeeded"}, "ps-0": {exitCode: 143, state: "Stopped"},
		"worker-0": {exitCode: 143, state: "Stopped"}, "worker-1": {exitCode: 143, state: "Stopped"}})
	r.wantLines(t, "tfgen: job tf-ps succeeded: replica chief-0 succeeded",
		"tfgen: stopping replica types ps, worker (clean pod policy Running)")
	c := readResults(t, r.results, "chief-0")["chief-0"]
	wantLearned(t, "chief-0", c.Losses, epochs)
	total := 0
	for _, w := range []string{"worker-0", "worker-1"} {
		if c.StepsPerWorker[w] == 0 {
			t.Errorf("%s ran no step: %v", w, c.StepsPerWorker)
		}
		total += c.StepsPerWorker[w]
	}
	if total != epochs*steps {
		t.Errorf("%d steps ran, want %d: %v", total, epochs*steps, c.StepsPerWorker)
	}
	for _, d := range c.VariableDevices {
		if !strings.Contains(d, "/job:ps/") {
			t.Errorf("a variable is on %s, not on the parameter server", d)
		}
	}
}

// TestWorkerRestart: worker 1 kills itself after epoch 2 (137), restart
// policy ExitCode restarts it; worker 0, whose collectives TensorFlow
// aborts, exits 143 and is restarted too; both resume from Keras's
// BackupAndRestore at epoch 3.
func TestWorkerRestart(t *testing.T) {
	r := runLocal(t, venvs.tf, "examples/tf-restart.yaml", nil)
	if r.code != 0 {
		t.Errorf("exit status %d, want 0", r.code)
	}
	r.wantTable(t, map[string]row{"worker-0": {state: "Succeeded"}, "worker-1": {state: finished}})
	for _, w := range []string{"worker-0", "worker-1"} {
		if n := r.table[w].restarts; n != 1 {
			t.Errorf("%s restarted %d times, want 1", w, n)
		}
	}
	r.wantLines(t, "[worker-1] worker-1: killing myself after epoch 2",
		"[worker-1] tfgen: exited with code 137 (Signaled): restarting (restart 1)",
		"[worker-0] tfgen: exited with code 143 (Error): restarting (restart 1)",
		"tfgen: job tf-restart succeeded: replica worker-0 succeeded")
	for name, w := range readResults(t, r.results, "worker-0", "worker-1") {
		if w.Starts != 2 || !slices.Equal(w.Epochs, []int{3, 4, 5}) {
			t.Errorf("%s: start %d ran epochs %v, want start 2 to run 3, 4, 5 (resumed from the backup)", name, w.Starts, w.Epochs)
		}
		// Resumed, not started over: epoch 1 of a fresh model loses about 2.4.
		if len(w.Losses) == 0 || w.Losses[0] > 0.05 {
			t.Errorf("%s: losses %v after the restart: training started over", name, w.Losses)
		}
	}
}

// TestMXNetDistSync: MXNet's dist_sync kvstore (ps-lite) with a scheduler,
// a server and two workers, on a machine with loopback only (a network
// namespace of its own): ps-lite must announce loopback addresses
// (DMLC_NODE_HOST), or servers and workers abort.
func TestMXNetDistSync(t *testing.T) {
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Fatalf("unshare (util-linux) is needed: %v", err)
	}
	ip, err := exec.LookPath("ip")
	if err != nil {
		t.Fatalf("ip (iproute2) is needed: %v", err)
	}
	wrap := []string{unshare, "--net", "sh", "-c", ip + ` link set lo up && exec "$@"`, "sh"}
	r := runLocal(t, venvs.mxnet, "examples/mxjob-dist-sync.yaml", wrap)
	if r.code != 0 {
		t.Errorf("exit status %d, want 0", r.code)
	}
	r.wantTable(t, map[string]row{"scheduler-0": {state: "Succeeded"}, "server-0": {state: "Succeeded"},
		"worker-0": {state: "Succeeded"}, "worker-1": {state: "Succeeded"}})
	r.wantLines(t, "tfgen: job mx-dist-sync succeeded: replica scheduler-0 succeeded")
	res := readResults(t, r.results, "worker-0", "worker-1")
	for name, w := range res {
		if w.KVStore != "dist_sync" || w.NumWorkers != 2 || w.NodeHost != "127.0.0.1" {
			t.Errorf("%s: kvstore %s of %d workers, DMLC_NODE_HOST %q; want dist_sync, 2, 127.0.0.1", name, w.KVStore, w.NumWorkers, w.NodeHost)
		}
		wantLearned(t, name, w.Losses, epochs)
	}
	// The servers applied every worker's gradients to one model: each
	// worker ends with the same weights, those of the data (-1 to 1).
	if a, b := res["worker-0"].Weight, res["worker-1"].Weight; !slices.Equal(a, b) || len(a) != 8 {
		t.Errorf("the workers' weights differ:\n%v\n%v", a, b)
	}
	for i, w := range res["worker-0"].Weight {
		if want := -1 + 2*float64(i)/7; w < want-0.05 || w > want+0.05 {
			t.Errorf("weight %d is %g, want about %g", i, w, want)
		}
	}
}
