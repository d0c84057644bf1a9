package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"

	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

func parse(t *testing.T, args []string, env map[string]string) (*supervise.Config, error) {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	o := &options{}
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if err := fromEnv(fs); err != nil {
		return nil, err
	}
	return o.Config(identity{pod: "mnist-worker-2", namespace: "ml"})
}

func TestConfigFromFlagsAndEnv(t *testing.T) {
	cfg, err := parse(t, []string{"--job", "mnist", "--roles", "worker:3:2222,chief:1:2222", "--restart-policy", "ExitCode",
		"--retryable-exit-codes", "130,137", "--max-restarts", "4", "--restart-backoff", "2s,1m", "--success-replica", "Worker-1", "--evaluator-grace", "90s"},
		map[string]string{"TFSUPERVISOR_BACKOFF_LIMIT": "6", "TFSUPERVISOR_RESTART_POLICY": "Never", "TFSUPERVISOR_CLEAN_POD_POLICY": "All",
			"TFSUPERVISOR_TTL_AFTER_FINISHED": "0s", "TFSUPERVISOR_ACTIVE_DEADLINE": "1h", "TFSUPERVISOR_EXCLUDE_EVALUATOR": "true"})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logf = nil
	job := &supervise.Job{Name: "mnist", Namespace: "ml",
		Layout: &cluster.Layout{Job: "mnist", Framework: "tensorflow", ExcludeEvaluator: true,
			Roles: []cluster.Role{{Type: "chief", Replicas: 1, Port: 2222}, {Type: "worker", Replicas: 3, Port: 2222}}},
		BackoffLimit: ptr[int32](6), ActiveDeadline: time.Hour, SuccessReplica: &supervise.Ref{Type: "worker", Index: 1},
		CleanPodPolicy: supervise.CleanAll, TTLAfterFinished: ptr(time.Duration(0)), EvaluatorGrace: 90 * time.Second}
	want := &supervise.Config{Job: job, Pod: "mnist-worker-2", Self: supervise.Ref{Type: "worker", Index: 2},
		Policy: supervise.Policy{Restart: supervise.ExitCode, RetryableExitCodes: []int32{130, 137}, MaxRestarts: ptr[int32](4),
			Backoff: supervise.Backoff{Initial: 2 * time.Second, Max: time.Minute}},
		GracePeriod: 30 * time.Second}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("Config (-want +got); a flag wins over its variable:\n%s", diff)
	}
}

func ptr[T any](v T) *T { return &v }

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--restart-policy", "Sometimes"}, "restart policy"},
		{[]string{"--roles", "worker:2:2222", "--replica-type", "ps"}, "not one of the job's roles"},
		{[]string{"--restart-backoff", "5m,1s"}, "MAX"},
		{[]string{"--retryable-exit-codes", "1,300"}, "0-255"},
		{[]string{"--retryable-exit-codes", "143-130"}, "range"},
		{[]string{"--retryable-exit-codes", "128-256"}, "range"},
		{[]string{"--max-restarts", "-1"}, "0 or more"},
		{[]string{"--backoff-limit", "-3"}, "0 or more"},
		{[]string{"--clean-pod-policy", "Some"}, "clean pod policy"},
		{[]string{"--ttl-after-finished", "soon"}, "ttl"},
		{[]string{"--success-replica", "chief"}, "type-index"},
		{[]string{"--success-workers", "0"}, "success workers"},
		{[]string{"--success-workers", "150%"}, "at most 100%"},
		{[]string{"--success-workers", "half"}, "success workers"},
		{[]string{"--success-workers", "2", "--success-policy", "AllWorkers"}, "not with success policy AllWorkers"},
		{[]string{"--evaluator-grace", "-1s"}, "evaluator grace"},
		{[]string{"--restart-scope", "Pod"}, "restart scope"},
	} {
		_, err := parse(t, append([]string{"--job", "mnist"}, tc.args...), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one about %q", tc.args, err, tc.want)
		}
	}
	for _, v := range []string{"many", "-1"} {
		if _, err := parse(t, nil, map[string]string{"TFSUPERVISOR_MAX_RESTARTS": v}); err == nil || !strings.Contains(err.Error(), "TFSUPERVISOR_MAX_RESTARTS") {
			t.Errorf("bad variable %q: %v", v, err)
		}
	}
}

// TestLimitsUnsetOrCount: --max-restarts and --backoff-limit are no limit
// until given, and 0 is a limit (no restart at all).
func TestLimitsUnsetOrCount(t *testing.T) {
	cfg, err := parse(t, []string{"--job", "mnist"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Policy.MaxRestarts != nil || cfg.Job.BackoffLimit != nil {
		t.Errorf("unset: max restarts %v, backoff limit %v; want no limit", cfg.Policy.MaxRestarts, cfg.Job.BackoffLimit)
	}
	cfg, err = parse(t, []string{"--job", "mnist", "--max-restarts", "0", "--backoff-limit", "2"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]*int32{ptr[int32](0), ptr[int32](2)}, []*int32{cfg.Policy.MaxRestarts, cfg.Job.BackoffLimit}); diff != "" {
		t.Errorf("limits (-want +got):\n%s", diff)
	}
}

// TestExitCodeRanges: --retryable-exit-codes takes the ranges its help
// shows, alone or among codes, each code once.
func TestExitCodeRanges(t *testing.T) {
	cfg, err := parse(t, []string{"--job", "mnist", "--restart-policy", "ExitCode", "--retryable-exit-codes", "128-255"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Policy.RetryableExitCodes; len(got) != 128 || got[0] != 128 || got[127] != 255 {
		t.Errorf("128-255 read as %v", got)
	}
	for _, code := range []int{127, 128, 200, 255} {
		if got, want := cfg.Policy.Retryable(code), code >= 128; got != want {
			t.Errorf("Retryable(%d) = %v", code, got)
		}
	}
	got, err := supervise.ParseExitCodes("1, 5-7,6,137")
	if diff := cmp.Diff([]int32{1, 5, 6, 7, 137}, got); err != nil || diff != "" {
		t.Errorf("ParseExitCodes: %v (-want +got):\n%s", err, diff)
	}
}

func TestTypeFromPod(t *testing.T) {
	for pod, want := range map[string]string{"mnist-ps-0": "ps", "mnist-tuner-server-1": "tuner-server", "other-3": "worker", "": "worker"} {
		if got := typeFromPod("mnist", pod); got != want {
			t.Errorf("typeFromPod(%q) = %q, want %q", pod, got, want)
		}
	}
}

func TestWriteTermination(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	if err := writeTermination(path, supervise.Result{ExitCode: 137, State: record.StateFailed, Reason: strings.Repeat("x", 5000), Restarts: 2}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if len(b) != MaxTerminationMessage || !strings.HasPrefix(string(b), `{"exitCode":137,"state":"Failed","reason":"xxx`) || b[len(b)-1] != '\n' {
		t.Errorf("%d bytes: %.60q", len(b), b)
	}
	if _, err := os.Stat(DefaultTerminationLog); err == nil {
		return // in a container: leave it alone
	}
	if err := writeTermination(DefaultTerminationLog, supervise.Result{}); err != nil {
		t.Errorf("the default path, absent here, is skipped: %v", err)
	}
	if _, err := os.Stat(DefaultTerminationLog); err == nil {
		t.Errorf("%s was created", DefaultTerminationLog)
	}
}
