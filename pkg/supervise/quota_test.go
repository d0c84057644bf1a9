package supervise_test

import (
	"testing"

	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

func TestQuota(t *testing.T) {
	for _, tc := range []struct {
		in          string
		total, want int32
	}{
		{"3", 4, 3}, {"3", 2, 2}, {"50%", 4, 2}, {"50%", 5, 3}, {"1%", 1000, 10}, {"1%", 3, 1}, {"100%", 7, 7},
	} {
		q, err := supervise.ParseQuota(tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if got := q.Of(tc.total); got != tc.want || q.String() != tc.in {
			t.Errorf("%s of %d = %d (%s), want %d", tc.in, tc.total, got, q, tc.want)
		}
	}
	for _, bad := range []string{"0", "-1", "0%", "101%", "half", "", "%"} {
		if _, err := supervise.ParseQuota(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestJobSucceededByWorkers: with successWorkers, a job without a chief
// succeeds once enough workers have, whichever they are; with a chief the
// chief still decides.
func TestJobSucceededByWorkers(t *testing.T) {
	half := &supervise.Quota{N: 50, Percent: true}
	tests := []struct {
		name   string
		roles  string
		states map[string]record.State
		want   bool
	}{
		{"2 of 4", "ps:1:1,worker:4:1", map[string]record.State{"worker-1": ok, "worker-3": ok, "worker-0": run}, true},
		{"1 of 4", "ps:1:1,worker:4:1", map[string]record.State{"worker-0": ok, "worker-1": bad}, false},
		{"3 of 5 rounds up", "worker:5:1", map[string]record.State{"worker-0": ok, "worker-1": ok}, false},
		{"the chief still decides", "chief:1:1,worker:2:1", map[string]record.State{"worker-0": ok, "worker-1": ok}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &supervise.Config{Job: &supervise.Job{Layout: roles(tt.roles), SuccessWorkers: half}, Self: supervise.Ref{Type: "worker"}}
			if got := cfg.Job.JobSucceeded(in(tt.states, ok)); got != tt.want {
				t.Errorf("JobSucceeded = %v, want %v", got, tt.want)
			}
		})
	}
}
