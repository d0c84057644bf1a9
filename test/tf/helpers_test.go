package tf

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// jobTimeout bounds one real training job: each takes seconds to a minute
// on two busy cores.
const jobTimeout = 5 * time.Minute

// localRun is how a tfgen run ended.
type localRun struct {
	out      string
	code     int
	took     time.Duration
	table    map[string]row // the closing table, by replica
	results  string         // RESULTS_DIR
	modelDir string         // MODEL_DIR
}

// row is one line of tfgen run's closing table.
type row struct {
	exitCode, restarts int
	state              string
}

// runLocal runs bin/tfgen run -f example args from the repository root,
// with venv's python3 first on PATH, RESULTS_DIR and MODEL_DIR fresh
// directories. wrap, when set, is a command line tfgen runs under.
func runLocal(t *testing.T, venv, example string, wrap []string, args ...string) *localRun {
	t.Helper()
	dir := t.TempDir()
	r := &localRun{results: filepath.Join(dir, "results"), modelDir: filepath.Join(dir, "model")}
	ctx, cancel := context.WithTimeout(t.Context(), jobTimeout)
	defer cancel()
	argv := append(append(append([]string(nil), wrap...), bins.tfgen, "run", "-f", example, "--color", "never"), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	// At the deadline, tfgen stops the replicas as on Ctrl-C.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGINT) }
	cmd.WaitDelay = time.Minute
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PATH="+filepath.Join(venv, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
		"RESULTS_DIR="+r.results, "MODEL_DIR="+r.modelDir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	began := time.Now()
	err := cmd.Run()
	r.took, r.out, r.code = time.Since(began), out.String(), cmd.ProcessState.ExitCode()
	t.Logf("%s took %v, exit status %d", example, r.took.Round(100*time.Millisecond), r.code)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("tfgen run -f %s %s: %v\n%s", example, strings.Join(args, " "), err, r.out)
		}
	})
	if ctx.Err() != nil {
		t.Errorf("tfgen run -f %s did not end within %v", example, jobTimeout)
	}
	r.table = parseTable(r.out)
	return r
}

// parseTable reads the table that ends tfgen run's output:
// REPLICA EXIT CODE RESTARTS STATE.
func parseTable(out string) map[string]row {
	rows := map[string]row{}
	i := strings.LastIndex(out, "\nREPLICA ")
	if i < 0 {
		return rows
	}
	for _, line := range strings.Split(out[i+1:], "\n")[1:] {
		f := strings.Fields(line)
		if len(f) != 4 {
			break
		}
		code, err1 := strconv.Atoi(f[1])
		restarts, err2 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil {
			break
		}
		rows[f[0]] = row{exitCode: code, restarts: restarts, state: f[3]}
	}
	return rows
}

// wantTable fails t unless the table's states and exit codes are want's
// (restarts are checked by the caller). A wanted state may be several,
// separated by |.
func (r *localRun) wantTable(t *testing.T, want map[string]row) {
	t.Helper()
	if len(r.table) != len(want) {
		t.Errorf("table has %d replicas, want %d: %v", len(r.table), len(want), r.table)
	}
	for name, w := range want {
		got, ok := r.table[name]
		if !ok || !slices.Contains(strings.Split(w.state, "|"), got.state) || got.exitCode != w.exitCode {
			t.Errorf("%s: %+v in the table, want state %s, exit code %d", name, got, w.state, w.exitCode)
		}
	}
}

// wantLines fails t unless the output holds every line of want.
func (r *localRun) wantLines(t *testing.T, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(r.out, w+"\n") {
			t.Errorf("no line %q in the output", w)
		}
	}
}

// result is what a training script wrote for its task.
type result struct {
	Task            string         `json:"task"`
	Strategy        string         `json:"strategy"`
	ReplicasInSync  int            `json:"replicas_in_sync"`
	Starts          int            `json:"starts"`
	Epochs          []int          `json:"epochs"`
	Losses          []float64      `json:"losses"`
	StepsPerWorker  map[string]int `json:"steps_per_worker"`
	VariableDevices []string       `json:"variable_devices"`
	UntrainedLoss   float64        `json:"untrained_loss"`
	Evaluations     []struct {
		Step int     `json:"step"`
		Loss float64 `json:"loss"`
	} `json:"evaluations"`
	// MXNet's.
	KVStore    string    `json:"kvstore"`
	NumWorkers int       `json:"num_workers"`
	Weight     []float64 `json:"weight"`
	NodeHost   string    `json:"node_host"`
}

// readResults returns the results in dir by task; t fails unless exactly
// the tasks of want wrote one.
func readResults(t *testing.T, dir string, want ...string) map[string]*result {
	t.Helper()
	out := map[string]*result{}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var r result
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[r.Task] = &r
	}
	for _, w := range want {
		if out[w] == nil {
			t.Errorf("%s wrote no result", w)
		}
	}
	if len(out) != len(want) {
		var got []string
		for k := range out {
			got = append(got, k)
		}
		t.Errorf("results from %v, want %v", got, want)
	}
	if t.Failed() {
		t.FailNow()
	}
	return out
}

// wantLearned fails t unless losses has n entries and fell to under a
// hundredth of the first: the model learned.
func wantLearned(t *testing.T, who string, losses []float64, n int) {
	t.Helper()
	if len(losses) != n {
		t.Errorf("%s: %d losses, want %d: %v", who, len(losses), n, losses)
		return
	}
	if first, last := losses[0], losses[n-1]; !(last < first/100) {
		t.Errorf("%s: loss %g to %g: did not learn", who, first, last)
	}
}
