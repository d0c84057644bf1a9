package supervise_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

func TestRestartPolicies(t *testing.T) {
	tests := []struct {
		name          string
		policy        supervise.RestartPolicy
		retryable     []int32
		maxRestarts   *int32
		backoffLimit  *int32
		codes         []string
		wantRuns      int
		want          supervise.Result
		wantJob       record.ConditionType
		wantEvents    []string // the replica's
		wantJobEvents []string // the keeper's
	}{
		{name: "Never success", policy: supervise.Never, codes: []string{"0"},
			wantRuns: 1, want: supervise.Result{State: record.StateSucceeded, Reason: "Completed"}, wantJob: record.JobSucceeded,
			wantEvents: []string{}, wantJobEvents: []string{"JobSucceeded"}},
		{name: "Never failure", policy: supervise.Never, codes: []string{"3", "0"},
			wantRuns: 1, want: supervise.Result{ExitCode: 3, State: record.StateFailed, Reason: "Error"}, wantJob: record.JobFailed,
			wantEvents: []string{"ReplicaExited", "ReplicaFailed"}, wantJobEvents: []string{"JobFailed"}},
		{name: "Never signal death", policy: supervise.Never, codes: []string{"k9"},
			wantRuns: 1, want: supervise.Result{ExitCode: 137, State: record.StateFailed, Reason: "Signaled"}, wantJob: record.JobFailed},
		{name: "OnFailure until success", policy: supervise.OnFailure, codes: []string{"3", "k15", "0"},
			wantRuns: 3, want: supervise.Result{State: record.StateSucceeded, Reason: "Completed", Restarts: 2}, wantJob: record.JobSucceeded,
			wantEvents: []string{"ReplicaExited", "ReplicaRestarting", "ReplicaExited", "ReplicaRestarting"}, wantJobEvents: []string{"JobSucceeded"}},
		{name: "OnFailure success first", policy: supervise.OnFailure, codes: []string{"0", "3"},
			wantRuns: 1, want: supervise.Result{State: record.StateSucceeded, Reason: "Completed"}, wantJob: record.JobSucceeded},
		{name: "Always restarts failures, not a success", policy: supervise.Always, codes: []string{"3", "k9", "0", "3"},
			wantRuns: 3, want: supervise.Result{State: record.StateSucceeded, Reason: "Completed", Restarts: 2}, wantJob: record.JobSucceeded},
		{name: "ExitCode signal retryable, 1-127 permanent", policy: supervise.ExitCode, codes: []string{"k9", "130", "255", "3", "0"},
			wantRuns: 4, want: supervise.Result{ExitCode: 3, State: record.StateFailed, Reason: "Error", Restarts: 3}, wantJob: record.JobFailed},
		{name: "ExitCode success", policy: supervise.ExitCode, codes: []string{"k15", "0"},
			wantRuns: 2, want: supervise.Result{State: record.StateSucceeded, Reason: "Completed", Restarts: 1}, wantJob: record.JobSucceeded},
		{name: "ExitCode list replaces the rule", policy: supervise.ExitCode, retryable: []int32{3}, codes: []string{"3", "k9"},
			wantRuns: 2, want: supervise.Result{ExitCode: 137, State: record.StateFailed, Reason: "Signaled", Restarts: 1}, wantJob: record.JobFailed},
		{name: "per-replica limit", policy: supervise.OnFailure, maxRestarts: ptr[int32](1), codes: []string{"3", "4", "0"},
			wantRuns: 2, want: supervise.Result{ExitCode: 4, State: record.StateFailed, Reason: "MaxRestartsExceeded", Restarts: 1}, wantJob: record.JobFailed,
			wantEvents: []string{"ReplicaExited", "ReplicaRestarting", "ReplicaExited", "ReplicaFailed"}, wantJobEvents: []string{"JobFailed"}},
		{name: "backoff limit", policy: supervise.OnFailure, backoffLimit: ptr[int32](2), codes: []string{"1", "2", "3", "0"},
			wantRuns: 3, want: supervise.Result{ExitCode: 3, State: record.StateFailed, Reason: "BackoffLimitExceeded", Restarts: 2}, wantJob: record.JobFailed,
			wantEvents:    []string{"ReplicaExited", "ReplicaRestarting", "ReplicaExited", "ReplicaRestarting", "ReplicaExited", "ReplicaRestarting", "ReplicaFailed"},
			wantJobEvents: []string{"BackoffLimitExceeded", "JobFailed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config(tt.policy)
			cfg.Policy.RetryableExitCodes, cfg.Policy.MaxRestarts, cfg.Job.BackoffLimit = tt.retryable, tt.maxRestarts, tt.backoffLimit
			f := newFixture(t, cfg, true)
			sc := newScript(t)
			res := f.run(t, sc.command(tt.codes...))
			if diff := cmp.Diff(tt.want, res); diff != "" {
				t.Errorf("Result (-want +got):\n%s", diff)
			}
			if got := sc.runs(); got != tt.wantRuns {
				t.Errorf("ran %d times, want %d", got, tt.wantRuns)
			}
			s := f.status(t)
			if !s.IsTrue(tt.wantJob) {
				t.Errorf("job conditions %+v, want %s", s.Conditions, tt.wantJob)
			}
			if s.Restarts != tt.want.Restarts {
				t.Errorf("job restarts = %d, want %d", s.Restarts, tt.want.Restarts)
			}
			if e := f.replica(t); e.LastExitCode == nil || int(*e.LastExitCode) != tt.want.ExitCode || e.State != tt.want.State {
				t.Errorf("the replica's record %+v, want state %s, last exit code %d", e, tt.want.State, tt.want.ExitCode)
			}
			if tt.wantEvents != nil {
				if diff := cmp.Diff(tt.wantEvents, f.rep.events(), cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("the replica's events (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tt.wantJobEvents, f.jobRep.events()); diff != "" {
					t.Errorf("the keeper's events (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestStartFailures(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "train.sh")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\nexit 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args   []string
		code   int
		reason string
	}{
		{[]string{"no-such-command-tfgen"}, 127, "CommandNotFound"},
		{[]string{filepath.Join(dir, "missing")}, 127, "CommandNotFound"},
		{[]string{notExec}, 126, "CommandNotExecutable"},
		{[]string{dir}, 126, "CommandNotExecutable"},
	} {
		t.Run(tc.reason+" "+filepath.Base(tc.args[0]), func(t *testing.T) {
			f := newFixture(t, config(supervise.Never), true)
			res := f.run(t, supervise.Command{Args: tc.args})
			if res.ExitCode != tc.code || res.Reason != tc.reason {
				t.Errorf("Result %+v, want exit code %d, reason %s", res, tc.code, tc.reason)
			}
			if e := f.replica(t); e.State != record.StateFailed {
				t.Errorf("the replica's record %+v, want Failed", e)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	cfg := config(supervise.OnFailure)
	cfg.Policy.Backoff = supervise.Backoff{Initial: time.Second, Max: 3 * time.Second}
	f := newFixture(t, cfg, true)
	sc := newScript(t)
	res := f.run(t, sc.command("1", "1", "1", "1", "1", "0"))
	if res.ExitCode != 0 || res.Restarts != 5 {
		t.Fatalf("Result %+v, want exit 0 after 5 restarts", res)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second, 3 * time.Second}
	if diff := cmp.Diff(want, f.clock.Waits()); diff != "" {
		t.Errorf("waits before restarts (-want +got):\n%s", diff)
	}
}

func TestBackoffDelay(t *testing.T) {
	b := supervise.Backoff{Initial: 10 * time.Millisecond, Max: 50 * time.Millisecond}
	var got []time.Duration
	for n := 1; n <= 5; n++ {
		got = append(got, b.Delay(n))
	}
	want := []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Delay (-want +got):\n%s", diff)
	}
	if d := (supervise.Backoff{}).Delay(1000); d != 0 {
		t.Errorf("zero backoff Delay = %v", d)
	}
}

// TestCompletesOnceReleased: in a pod (Linger) with Complete, a replica
// that trained returns once the job gives its pod back (its type torn
// down), Released, and the keeper scaled its StatefulSet to zero first in
// the status; a replica whose pod came up with the job over (one made
// again) does not train and lingers until stopped, as before.
func TestCompletesOnceReleased(t *testing.T) {
	lone := func() *supervise.Config {
		cfg := config(supervise.Never)
		cfg.Job.Layout = &cluster.Layout{Job: "j", Roles: []cluster.Role{{Type: "worker", Replicas: 1, Port: 2222}}}
		return cfg
	}
	t.Run("trained here", func(t *testing.T) {
		f := newFixture(t, lone(), true)
		sup := f.supervisor()
		sup.Linger, sup.Complete = true, true
		stop := f.keep(t)
		res := sup.Run(context.Background(), newScript(t).command("0"))
		stop()
		want := supervise.Result{State: record.StateSucceeded, Reason: "Completed", Released: true}
		if diff := cmp.Diff(want, res); diff != "" {
			t.Errorf("Result (-want +got):\n%s", diff)
		}
		if code := res.ReleasedExitCode(); code != 0 {
			t.Errorf("exit code %d, want 0", code)
		}
		if s := f.status(t); !slices.Contains(s.Teardown, "worker") {
			t.Errorf("status %+v: the worker type not torn down", s)
		}
	})
	t.Run("made again after the end", func(t *testing.T) {
		f := newFixture(t, lone(), true)
		if _, err := f.store.Update(context.Background(), func(s *record.Status) error {
			s.Finish(true, "JobSucceeded", "", time.Now())
			s.AddSucceeded("worker", 0)
			s.Teardown = []string{"worker"}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		sup := f.supervisor()
		sup.Linger, sup.Complete = true, true
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan supervise.Result)
		go func() { done <- sup.Run(ctx, newScript(t).command("0")) }()
		<-f.rep.idle()
		cancel()
		if res := <-done; res.Released || res.State != record.StateIdle {
			t.Errorf("Result %+v, want Idle, not released", res)
		}
	})
	t.Run("a failed replica's code", func(t *testing.T) {
		if code := (supervise.Result{State: record.StateFailed, ExitCode: 1, Released: true}).ReleasedExitCode(); code != supervise.ExitReleasedFailed {
			t.Errorf("exit code %d, want %d", code, supervise.ExitReleasedFailed)
		}
	})
}
