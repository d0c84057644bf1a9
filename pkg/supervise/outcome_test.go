package supervise_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

func roles(s string) *cluster.Layout {
	r, err := cluster.ParseRoles(s)
	if err != nil {
		panic(err)
	}
	return &cluster.Layout{Job: "j", Roles: r}
}

// in returns whether a replica is in one of states.
func in(states map[string]record.State, want ...record.State) func(string, int32) bool {
	return func(t string, i int32) bool {
		st, ok := states[supervise.Ref{Type: t, Index: i}.String()]
		return ok && slices.Contains(want, st)
	}
}

const ok, bad, run = record.StateSucceeded, record.StateFailed, record.StateRunning

func TestJobSucceeded(t *testing.T) {
	tests := []struct {
		name    string
		layout  *cluster.Layout
		policy  string
		replica string
		states  map[string]record.State
		want    bool
	}{
		{"chief decides", roles("chief:1:1,ps:1:1,worker:2:1"), "", "", map[string]record.State{"chief-0": ok, "worker-0": run}, true},
		{"worker 0 does not decide with a chief", roles("chief:1:1,worker:2:1"), "", "", map[string]record.State{"worker-0": ok, "worker-1": ok}, false},
		{"master decides", roles("master:1:1,worker:2:1"), "", "", map[string]record.State{"master-0": ok}, true},
		{"worker 0 without chief", roles("ps:1:1,worker:2:1"), "", "", map[string]record.State{"worker-0": ok, "worker-1": run}, true},
		{"worker 1 alone is not enough", roles("ps:1:1,worker:2:1"), "", "", map[string]record.State{"worker-1": ok}, false},
		{"ps never decides", roles("ps:1:1,worker:2:1"), "", "", map[string]record.State{"ps-0": ok}, false},
		{"evaluator never decides", roles("evaluator:1:1,worker:1:1"), "", "", map[string]record.State{"evaluator-0": ok}, false},
		{"AllWorkers waits for all", roles("ps:1:1,worker:2:1"), "AllWorkers", "", map[string]record.State{"worker-0": ok, "worker-1": run}, false},
		{"AllWorkers all done", roles("ps:1:1,worker:2:1"), "AllWorkers", "", map[string]record.State{"worker-0": ok, "worker-1": ok}, true},
		{"chief beats AllWorkers", roles("chief:1:1,worker:2:1"), "AllWorkers", "", map[string]record.State{"chief-0": ok}, true},
		{"success replica overrides", roles("chief:1:1,worker:2:1"), "", "worker-1", map[string]record.State{"chief-0": ok, "worker-1": run}, false},
		{"success replica done", roles("chief:1:1,worker:2:1"), "", "worker-1", map[string]record.State{"worker-1": ok}, true},
		{"no roles: the replica itself", &cluster.Layout{}, "", "", map[string]record.State{"worker-0": ok}, true},
		{"failed is not success", roles("worker:1:1"), "", "", map[string]record.State{"worker-0": bad}, false},
		{"MXNet scheduler decides", roles("scheduler:1:1,server:1:1,worker:2:1"), "", "", map[string]record.State{"worker-0": ok, "worker-1": ok}, false},
		{"MXNet scheduler done", roles("scheduler:1:1,server:1:1,worker:2:1"), "", "", map[string]record.State{"scheduler-0": ok}, true},
		{"MXTune tuners decide", roles("tuner:2:1,tunerserver:1:1,tunertracker:1:1"), "", "", map[string]record.State{"tuner-0": ok, "tuner-1": ok}, true},
		{"MXTune waits for every tuner", roles("tuner:2:1,tunerserver:1:1,tunertracker:1:1"), "", "", map[string]record.State{"tuner-0": ok}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &supervise.Config{Job: &supervise.Job{Layout: tt.layout, SuccessPolicy: tt.policy}, Self: supervise.Ref{Type: "worker"}}
			if tt.replica != "" {
				ref, err := supervise.ParseRef(tt.replica)
				if err != nil {
					t.Fatal(err)
				}
				cfg.Job.SuccessReplica = &ref
			}
			if len(tt.layout.Roles) == 0 {
				cfg.Job.Solo = &cfg.Self
			}
			if got := cfg.Job.JobSucceeded(in(tt.states, ok)); got != tt.want {
				t.Errorf("JobSucceeded = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestStopTypes(t *testing.T) {
	l := roles("chief:1:1,evaluator:0:1,ps:2:1,worker:2:1")
	tests := []struct {
		name   string
		policy supervise.CleanPodPolicy
		self   string
		states map[string]record.State
		want   []string
	}{
		{"All", supervise.CleanAll, "ps", nil, []string{"chief", "ps", "worker"}},
		{"None", supervise.CleanNone, "chief", nil, nil},
		{"Running skips finished types", supervise.CleanRunning, "chief",
			map[string]record.State{"chief-0": ok, "worker-0": ok, "worker-1": run}, []string{"ps", "worker"}},
		{"Running: finished means succeeded or failed", supervise.CleanRunning, "worker",
			map[string]record.State{"chief-0": bad, "ps-0": run, "ps-1": ok, "worker-0": ok, "worker-1": ok}, []string{"ps"}},
		{"Running: a replica never seen is unfinished", supervise.CleanRunning, "worker",
			map[string]record.State{"chief-0": ok, "ps-0": ok, "ps-1": ok, "worker-0": bad}, []string{"worker"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &supervise.Job{Layout: l, CleanPodPolicy: tt.policy}
			if diff := cmp.Diff(tt.want, j.StopTypes(in(tt.states, ok, bad))); diff != "" {
				t.Errorf("StopTypes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIsMaster(t *testing.T) {
	for _, tc := range []struct {
		layout string
		self   supervise.Ref
		want   bool
	}{
		{"chief:1:1,worker:2:1", supervise.Ref{Type: "chief"}, true},
		{"chief:1:1,worker:2:1", supervise.Ref{Type: "worker"}, false},
		{"ps:1:1,worker:2:1", supervise.Ref{Type: "worker"}, true},
		{"ps:1:1,worker:2:1", supervise.Ref{Type: "worker", Index: 1}, false},
		{"ps:1:1,worker:2:1", supervise.Ref{Type: "ps"}, false},
	} {
		cfg := &supervise.Config{Job: &supervise.Job{Layout: roles(tc.layout)}, Self: tc.self}
		if got := cfg.IsMaster(); got != tc.want {
			t.Errorf("%s as %s: IsMaster = %v, want %v", tc.layout, tc.self, got, tc.want)
		}
	}
}
