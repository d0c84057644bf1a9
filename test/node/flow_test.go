package node

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/record"
)

// TestWrapJobSucceeds: a wrap-mode job on the real kubelet. The init
// container copies tfsupervisor (65532) into the shared volume, the
// training containers run it wrapping the workload as the image's user,
// the chief succeeds after every worker reported, and the job with it.
func TestWrapJobSucceeds(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	r := c.startJob(t, jobSpec{name: "wrap", runPolicy: object{"cleanPodPolicy": "All"},
		replicas: []replica{
			{kind: "Chief", n: 1, policy: "ExitCode", args: []string{"--wait-for", "worker-0,worker-1"}},
			{kind: "Worker", n: 2, policy: "OnFailure"},
		}}, nil)
	s := r.waitStatus("the job to end", (*record.Status).Ended)
	if !s.IsTrue(record.JobSucceeded) {
		t.Fatalf("the job failed: %s", r.statusJSON())
	}
	r.waitReplicas(map[string]int32{"chief": 0, "worker": 0})
	r.waitPods()
	if diff := cmp.Diff(map[string]int{"chief-0": 1, "worker-0": 1, "worker-1": 1}, r.runs()); diff != "" {
		t.Errorf("runs per replica (-want +got):\n%s", diff)
	}
}
