package skew

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/test/harness"
)

// TestWrapModeOnKubernetes134: a job rendered for the cluster's minor
// (--kube-version 1.34: the copy of tfsupervisor, no container restart
// rules) runs in wrap mode on the 1.34 kubelet, as on its own minor: every
// replica runs once and the job succeeds; its StatefulSets go to zero
// (clean pod policy Running).
func TestWrapModeOnKubernetes134(t *testing.T) {
	t.Parallel()
	r := start(t, harness.WorkloadJob{Name: "wrap", CleanPodPolicy: job.CleanRunning, RestartPolicy: job.RestartOnFailure,
		Flags: []string{"--kube-version", kubeVersion}})
	s := r.WaitStatus("the job to end", (*record.Status).Ended)
	if !s.IsTrue(record.JobSucceeded) {
		t.Fatalf("status %s: want Succeeded", r.StatusJSON())
	}
	r.WaitReplicas(map[string]int32{"chief": 0, "worker": 0})
	if diff := cmp.Diff(map[string]int{"chief-0": 1, "worker-0": 1, "worker-1": 1}, r.Runs()); diff != "" {
		t.Errorf("runs per replica (-want +got):\n%s", diff)
	}
	// The chief decided the job: the workers' records may reach its keeper
	// after it ended.
	want := map[string]*record.ReplicaStatus{"Chief": {Succeeded: 1}, "Worker": {Succeeded: 2}}
	s = r.WaitStatus("every replica counted", func(s *record.Status) bool { return cmp.Equal(want, s.ReplicaStatuses) })
	if s.Restarts != 0 {
		t.Errorf("status %s: want no restart", r.StatusJSON())
	}
}
