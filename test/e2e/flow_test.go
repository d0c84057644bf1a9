package e2e

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/record"
)

// TestJobSucceeds: the whole flow. The StatefulSet controller makes the
// pods, the node agent runs tfgen-install and the supervisors wrapping
// the workload; the workers finish, the chief (after seeing them run)
// exits 0, the record says Succeeded, every StatefulSet goes to 0
// (cleanPodPolicy All) and the pods go. Applied again, the finished job
// does not train again.
func TestJobSucceeds(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	r := c.startJob(t, jobSpec{name: "mnist", runPolicy: object{"cleanPodPolicy": "All"},
		exits: []string{"ps=block"},
		replicas: []replica{
			{kind: "Chief", n: 1, policy: "ExitCode", args: []string{"--wait-for", "worker-0,worker-1,ps-0"}},
			{kind: "PS", n: 1, policy: "Always"},
			{kind: "Worker", n: 2, policy: "OnFailure"},
		}}, nil)
	s := r.waitStatus("Succeeded", (*record.Status).Ended)
	if !s.IsTrue(record.JobSucceeded) {
		t.Fatalf("job ended without success: %s", r.statusJSON())
	}
	if e := s.Lookup("chief", 0); e == nil || e.State != record.StateSucceeded || e.LastExitCode == nil || *e.LastExitCode != 0 {
		t.Errorf("chief-0 in the record: %+v, want Succeeded with exit code 0", e)
	}
	r.waitReplicas(map[string]int32{"chief": 0, "ps": 0, "worker": 0})
	r.waitPods()
	want := map[string]int{"chief-0": 1, "ps-0": 1, "worker-0": 1, "worker-1": 1}
	if diff := cmp.Diff(want, r.runs()); diff != "" {
		t.Errorf("runs per replica (-want +got):\n%s", diff)
	}
}
