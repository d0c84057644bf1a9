package kubelet135

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// TestSidecarModeOnKubelet135: a job whose training containers have no
// command, rendered for 1.35 (sidecar mode, the copy of tfsupervisor),
// runs on the 1.35 kubelet: the chief fails once (exit 1) and the kubelet
// restarts its container by its restart rules (OnFailure: Restart NotIn
// [0]), the workers exit 0 and are never restarted; the chief's second
// run succeeds, and the job with it, the restart counted; its
// StatefulSets go to zero.
func TestSidecarModeOnKubelet135(t *testing.T) {
	c := cluster
	c.CP = controlplane.Shared(t)
	node, err := c.CP.Client().CoreV1().Nodes().Get(t.Context(), controlplane.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("kubelet %s, API server %s", node.Status.NodeInfo.KubeletVersion, c.CP.KubeVersion())
	r := c.Start(t, harness.WorkloadJob{Name: "sidecar", Sidecar: true, CleanPodPolicy: job.CleanRunning, RestartPolicy: job.RestartOnFailure,
		Exits: []string{"chief-0=1,0"}, Flags: []string{"--kube-version", kubeletVersion}}, waitTimeout)
	want := map[string]*record.ReplicaStatus{"Chief": {Succeeded: 1}, "Worker": {Succeeded: 2}}
	s := r.WaitStatus("the job to succeed with every replica counted", func(s *record.Status) bool {
		return s.Ended() && (!s.IsTrue(record.JobSucceeded) || cmp.Equal(want, s.ReplicaStatuses))
	})
	if !s.IsTrue(record.JobSucceeded) || s.Restarts != 1 {
		t.Fatalf("status %s: want Succeeded with 1 restart", r.StatusJSON())
	}
	r.WaitReplicas(map[string]int32{"chief": 0, "worker": 0})
	if diff := cmp.Diff(map[string]int{"chief-0": 2, "worker-0": 1, "worker-1": 1}, r.Runs()); diff != "" {
		t.Errorf("runs per replica (-want +got):\n%s", diff)
	}
}
