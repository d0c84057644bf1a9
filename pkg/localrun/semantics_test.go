//go:build unix

package localrun

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/job"
)

// Scripts of the semantics check: a replica that serves until stopped, one
// that fails, one that succeeds, one that succeeds once the test says go.
const (
	serve   = `exec sleep 600`
	failNow = `exit 1`
	succeed = `exit 0`
	onGo    = `read x < "$DIR/go"; exit 0`
)

// TestKubeflowSemantics runs jobs through tfgen run and checks their
// outcome against Kubeflow v1.9's status rules (UpdateJobStatus in
// tfjob_controller.go): a chief or PS failure fails the job, a worker's
// failure fails a job without a chief, worker 0 decides without a chief,
// AllWorkers waits for every worker; and where tfgen goes beyond them:
// dynamic workers leave the outcome to the chief, successWorkers counts
// workers. trigger, when set, is a line of output after which the test
// lets the replicas waiting on "go" finish.
func TestKubeflowSemantics(t *testing.T) {
	byIndex := func(scripts ...string) string { // worker i runs scripts[i]
		var b strings.Builder
		b.WriteString(`case "$POD_NAME" in `)
		for i, s := range scripts {
			b.WriteString("demo-worker-" + string(rune('0'+i)) + ") " + s + ";; ")
		}
		return b.String() + "esac"
	}
	tests := []struct {
		name    string
		specs   map[job.ReplicaType][]any // replicas, policy, script
		edit    func(*job.Job)
		trigger string
		err     string   // "" when the job succeeds
		rows    []string // table rows to find
	}{
		{name: "a chief failure fails the job",
			specs: map[job.ReplicaType][]any{job.Chief: {1, failNow}, job.PS: {1, serve}, job.Worker: {2, serve}},
			err:   "job demo failed (ReplicaFailed): replica chief-0 exited with code 1", rows: []string{"chief-0 1 0 Failed"}},
		{name: "a PS failure fails the job",
			specs: map[job.ReplicaType][]any{job.Chief: {1, serve}, job.PS: {1, failNow}, job.Worker: {1, serve}},
			err:   "job demo failed (ReplicaFailed): replica ps-0 exited with code 1", rows: []string{"ps-0 1 0 Failed"}},
		{name: "without a chief a worker failure fails the job",
			specs: map[job.ReplicaType][]any{job.PS: {1, serve}, job.Worker: {2, byIndex(serve, failNow)}},
			err:   "job demo failed (ReplicaFailed): replica worker-1 exited with code 1", rows: []string{"worker-1 1 0 Failed"}},
		{name: "with a chief a worker failure fails the job",
			specs: map[job.ReplicaType][]any{job.Chief: {1, serve}, job.Worker: {2, byIndex(serve, failNow)}},
			err:   "job demo failed (ReplicaFailed): replica worker-1 exited with code 1", rows: []string{"worker-1 1 0 Failed"}},
		{name: "without a chief worker 0 decides",
			specs: map[job.ReplicaType][]any{job.PS: {1, serve}, job.Worker: {2, byIndex(succeed, serve)}},
			rows:  []string{"worker-0 0 0 Succeeded"}},
		{name: "AllWorkers waits for every worker",
			specs: map[job.ReplicaType][]any{job.Worker: {2, byIndex(succeed, onGo)}},
			edit:  func(j *job.Job) { j.SuccessPolicy = job.SuccessAllWorkers }, trigger: "[worker-0] tfgen: exited with code 0",
			rows: []string{"worker-0 0 0 Succeeded", "worker-1 0 0 Succeeded"}},
		{name: "dynamic workers: a worker failure leaves the chief to decide",
			specs: map[job.ReplicaType][]any{job.Chief: {1, onGo}, job.Worker: {2, byIndex(serve, failNow)}},
			edit:  func(j *job.Job) { j.EnableDynamicWorker = true }, trigger: "[worker-1] tfgen: exited with code 1",
			rows: []string{"chief-0 0 0 Succeeded", "worker-1 1 0 Failed"}},
		{name: "dynamic workers without a chief: worker 0's failure fails the job",
			specs: map[job.ReplicaType][]any{job.Worker: {2, byIndex(failNow, serve)}},
			edit:  func(j *job.Job) { j.EnableDynamicWorker = true },
			err:   "job demo failed (ReplicaFailed): replica worker-0 exited with code 1", rows: []string{"worker-0 1 0 Failed"}},
		{name: "successWorkers: half the workers decide",
			specs: map[job.ReplicaType][]any{job.Worker: {4, byIndex(serve, succeed, succeed, serve)}},
			edit:  func(j *job.Job) { j.SuccessWorkers = new(intstr.FromString("50%")) },
			rows:  []string{"worker-1 0 0 Succeeded", "worker-2 0 0 Succeeded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := fifos(t, "go")
			b := testjob.New("demo")
			for typ, s := range tt.specs {
				b.Replica(typ, int32(s[0].(int)), testjob.RestartPolicy(job.RestartNever), testjob.Shell(s[1].(string)), dirEnv(dir))
			}
			j := b.Defaulted()
			if tt.edit != nil {
				tt.edit(j)
			}
			out := newLines(tt.trigger)
			if tt.trigger != "" {
				go func() {
					<-out.seen
					if f, err := os.OpenFile(filepath.Join(dir, "go"), os.O_WRONLY, 0); err == nil {
						f.WriteString("go\n")
						f.Close()
					}
				}()
			}
			s, output := run(t, context.Background(), j, PlanOptions{GracePeriod: 5e9}, Options{Out: out})
			err := s.Err()
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("the job did not succeed: %v\n%s", err, output)
			case tt.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.err)):
				t.Errorf("Err() = %v, want %s…\n%s", err, tt.err, output)
			}
			var got []string
			for _, row := range strings.Split(strings.TrimSpace(table(t, s)), "\n")[1:] {
				got = append(got, strings.Join(strings.Fields(row), " "))
			}
			for _, want := range tt.rows {
				if !slices.Contains(got, want) {
					t.Errorf("table lacks %q:\n%s\noutput:\n%s", want, strings.Join(got, "\n"), output)
				}
			}
		})
	}
}

// TestEvaluatorGrace: the chief succeeds while the evaluator evaluates;
// the evaluator finishes (told to once the job has succeeded) and its own
// outcome is in the status. With the grace at 0s it is stopped at once,
// as Kubeflow stops it.
func TestEvaluatorGrace(t *testing.T) {
	for _, grace := range []string{"", "0s"} {
		t.Run("grace "+grace, func(t *testing.T) {
			dir := fifos(t, "go", "eval-up")
			j := testjob.New("demo").
				Replica(job.Chief, 1, testjob.RestartPolicy(job.RestartNever), testjob.Shell(`read x < "$DIR/eval-up"; exit 0`), dirEnv(dir)).
				Replica(job.Evaluator, 1, testjob.RestartPolicy(job.RestartNever), testjob.Shell(`echo up > "$DIR/eval-up"; read x < "$DIR/go"; echo evaluated; exit 0`), dirEnv(dir)).
				Defaulted()
			if grace != "" {
				j.Annotations = map[string]string{job.AnnotationEvaluatorGrace: grace}
			}
			out := newLines("tfgen: job demo succeeded")
			if grace == "" {
				go func() {
					<-out.seen
					if f, err := os.OpenFile(filepath.Join(dir, "go"), os.O_WRONLY, 0); err == nil {
						f.WriteString("go\n")
						f.Close()
					}
				}()
			}
			s, output := run(t, context.Background(), j, PlanOptions{}, Options{Out: out})
			if err := s.Err(); err != nil {
				t.Fatalf("Err() = %v\n%s", err, output)
			}
			ev := s.Status.ReplicaStatuses["Evaluator"]
			if grace == "" {
				checkTable(t, s, output, "chief-0 0 0 Succeeded", "evaluator-0 0 0 Succeeded")
				if !strings.Contains(output, "[evaluator-0] evaluated\n") || ev == nil || ev.Succeeded != 1 {
					t.Errorf("evaluator status %+v; output:\n%s", ev, output)
				}
				return
			}
			checkTable(t, s, output, "chief-0 0 0 Succeeded", "evaluator-0 143 0 Stopped")
		})
	}
}

// TestJobRestart: under restart scope Job, worker-1 and worker-2 fail
// together (143, retryable) once every worker is up: every worker's
// training process restarts in place, each runs exactly twice, and the
// job counts one restart; worker 0 then succeeds. Each script counts its
// runs in a file.
func TestJobRestart(t *testing.T) {
	dir := fifos(t, "up1", "up2", "go1", "go2", "again1", "again2")
	count := `n=$(cat "$DIR/$POD_NAME" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$DIR/$POD_NAME"; `
	// worker-1 and worker-2 fail only once both are up (a worker that
	// started after the other's failure would start in the job's next
	// generation and never be restarted), and worker-0 succeeds, ending
	// the job, only once both have counted their second run (else the
	// job's end may stop one before it does).
	j := testjob.New("demo").Replica(job.Worker, 3, testjob.RestartPolicy(job.RestartExitCode), testjob.Shell(count+`case "$POD_NAME.$n" in
demo-worker-0.1) echo up > "$DIR/up1"; echo up > "$DIR/up2"; echo go > "$DIR/go1"; echo go > "$DIR/go2"; exec sleep 600;;
demo-worker-0.2) read x < "$DIR/again1"; read x < "$DIR/again2"; exit 0;;
demo-worker-1.1) read x < "$DIR/up1"; read x < "$DIR/go1"; exit 143;;
demo-worker-2.1) read x < "$DIR/up2"; read x < "$DIR/go2"; exit 143;;
demo-worker-1.2) echo up > "$DIR/again1"; exec sleep 600;;
demo-worker-2.2) echo up > "$DIR/again2"; exec sleep 600;;
*) exec sleep 600;;
esac`), dirEnv(dir)).Defaulted()
	j.Annotations = map[string]string{job.AnnotationRestartScope: "Job"}
	j.RunPolicy.BackoffLimit = new(int32(1))
	s, out := run(t, context.Background(), j, PlanOptions{GracePeriod: 5e9}, Options{})
	if err := s.Err(); err != nil {
		t.Fatalf("Err() = %v\n%s", err, out)
	}
	// worker-1 and worker-2 each fail, or are stopped by the other's
	// failure first: one or two own restarts between them.
	rows := strings.Split(strings.TrimSpace(table(t, s)), "\n")[1:]
	own := 0
	for i, row := range rows {
		f := strings.Fields(row)
		switch {
		case i == 0 && strings.Join(f, " ") != "worker-0 0 0 Succeeded", i > 0 && (f[1] != "143" || f[3] != "Stopped"):
			t.Errorf("row %q\n%s", row, out)
		case i > 0:
			n, _ := strconv.Atoi(f[2])
			own += n
		}
	}
	if own < 1 || own > 2 {
		t.Errorf("worker-1 and worker-2 restarted %d times after their own failures, want 1 or 2\n%s", own, out)
	}
	if s.Status.Restarts != 1 || s.Status.RestartGeneration != 1 {
		t.Errorf("job restarts %d (generation %d), want 1: one failure of two replicas counts once", s.Status.Restarts, s.Status.RestartGeneration)
	}
	for _, w := range []string{"demo-worker-0", "demo-worker-1", "demo-worker-2"} {
		if b, _ := os.ReadFile(filepath.Join(dir, w)); strings.TrimSpace(string(b)) != "2" {
			t.Errorf("%s ran %q times, want 2\n%s", w, b, out)
		}
	}
	if !strings.Contains(out, "[worker-0] tfgen: stopped to restart with the job (job restart 1)") {
		t.Errorf("output lacks worker-0's job restart:\n%s", out)
	}
}

// TestJobRestartBackoffLimit: under restart scope Job with backoffLimit
// 0, the first retryable failure fails the job.
func TestJobRestartBackoffLimit(t *testing.T) {
	j := testjob.New("demo").Replica(job.Worker, 2, testjob.RestartPolicy(job.RestartExitCode),
		testjob.Shell(`case "$POD_NAME" in *-1) exit 143;; *) exec sleep 600;; esac`)).Defaulted()
	j.Annotations = map[string]string{job.AnnotationRestartScope: "Job"}
	j.RunPolicy.BackoffLimit = new(int32(0))
	s, out := run(t, context.Background(), j, PlanOptions{GracePeriod: 5e9}, Options{})
	want := "job demo failed (BackoffLimitExceeded): replica worker-1 exited with code 143 and the job has used its backoff limit of 0 restarts"
	if err := s.Err(); err == nil || err.Error() != want {
		t.Errorf("Err() = %v, want %s\n%s", err, want, out)
	}
}
