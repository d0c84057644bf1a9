package supervise

import (
	"testing"

	"github.com/tfgen/tfgen/pkg/cluster"
)

// TestDecider: whose success decides the job's.
func TestDecider(t *testing.T) {
	for _, tc := range []struct {
		layout  string
		success string
		want    Ref
	}{
		{"chief:1:1,ps:1:1,worker:2:1", "", Ref{Type: "chief"}},
		{"master:1:1,worker:2:1", "", Ref{Type: "master"}},
		{"ps:1:1,worker:2:1", "", Ref{Type: "worker"}},
		{"chief:1:1,worker:2:1", "worker-1", Ref{Type: "worker", Index: 1}},
		{"scheduler:1:1,server:1:1,worker:2:1", "", Ref{Type: "scheduler"}},
		{"tuner:2:1,tunerserver:1:1", "", Ref{Type: "tuner"}},
		{"evaluator:1:1,ps:1:1", "", Ref{Type: "evaluator"}},
	} {
		j := &Job{Layout: &cluster.Layout{Roles: mustRoles(t, tc.layout)}}
		if tc.success != "" {
			ref, _ := ParseRef(tc.success)
			j.SuccessReplica = &ref
		}
		if got := j.decider(); got != tc.want {
			t.Errorf("%s: decider = %s, want %s", tc.layout, got, tc.want)
		}
	}
}

func mustRoles(t *testing.T, s string) []cluster.Role {
	t.Helper()
	r, err := cluster.ParseRoles(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
