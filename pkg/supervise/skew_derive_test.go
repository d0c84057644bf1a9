package supervise

import (
	"testing"

	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/record"
)

// TestRefusedReplicasFailTheJob: replicas refused for a version skew fail
// the job, its Failed condition carrying the refusal's message, whatever
// their type; nothing ran, so nothing succeeded.
func TestRefusedReplicasFailTheJob(t *testing.T) {
	r, err := cluster.ParseRoles("ps:1:1,worker:2:1")
	if err != nil {
		t.Fatal(err)
	}
	j := &Job{Name: "j", Layout: &cluster.Layout{Job: "j", Roles: r}, CleanPodPolicy: CleanRunning}
	const msg = "replica ps-0 does not train: its pod was rendered for Kubernetes 1.37, but ..."
	refused := func(ref Ref) Observed {
		return Observed{Ref: ref, Pod: "uid-" + ref.String(), Replica: record.Replica{State: record.StateFailed, Reason: ReasonKubernetesVersionSkew, Message: msg}}
	}
	obs := []Observed{refused(Ref{"ps", 0}), {Ref: Ref{"worker", 0}, Pod: "uid-w0"}, {Ref: Ref{"worker", 1}, Pod: "uid-w1"}}
	got, _ := j.derive(&record.Status{}, observation{replicas: obs, now: t0})
	c := got.Condition(record.JobFailed)
	if c == nil || c.Status != "True" || c.Reason != ReasonReplicaFailed || c.Message != msg {
		t.Fatalf("Failed condition %+v, want True, %s, the refusal's message", c, ReasonReplicaFailed)
	}
	if f := got.ReplicaStatuses["PS"]; f == nil || f.Failed != 1 {
		t.Errorf("PS counts %+v, want 1 failed", f)
	}
}
