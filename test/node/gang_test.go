package node

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/record"
)

// TestGangKubernetesSchedules: kube-scheduler, with the GenericWorkload
// gate, places a job whose pods form one gang of three (the PodGroup's
// minCount); the job trains and succeeds. A minCount its pods could never
// reach would leave them all unscheduled and the job never ending.
func TestGangKubernetesSchedules(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	r := c.startJob(t, jobSpec{name: "gang", runPolicy: job.RunPolicy{SchedulingPolicy: &job.SchedulingPolicy{MinAvailable: new(int32(3))}},
		flags: []string{"--gang-scheduler", "kubernetes"},
		replicas: []replica{
			{kind: "Chief", n: 1, policy: "Never", args: []string{"--wait-for", "worker-0,worker-1"}},
			{kind: "Worker", n: 2, policy: "Never"},
		}}, nil)
	if s := r.WaitStatus("the job to end", (*record.Status).Ended); !s.IsTrue(record.JobSucceeded) {
		t.Fatalf("the job failed: %s", r.StatusJSON())
	}
	pg, err := c.cp.Client().SchedulingV1beta1().PodGroups(r.Namespace).Get(t.Context(), "gang", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g := pg.Spec.SchedulingPolicy.Gang; g == nil || g.MinCount != 3 {
		t.Errorf("PodGroup gang: %+v, want a gang of 3", g)
	}
}
