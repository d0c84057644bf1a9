package node

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/pkg/record"
)

// TestNothingLeftRunning: a finished replica holds nothing. While a job
// runs, a StatefulSet gives back the pods of its highest replicas once
// they finished; once the job succeeded, every StatefulSet goes to zero
// and no pod is left, under cleanPodPolicy Running (the default) and All.
func TestNothingLeftRunning(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		spec   jobSpec
		during map[string]int32 // replicas while the job waits for gate-0
		pods   []string         // pods then
	}{
		{
			// AllWorkers: worker 2 finishes first and its pod goes; the
			// parameter server serves until the job ends.
			name: "AllWorkers",
			spec: jobSpec{name: "allw", successPolicy: "AllWorkers", exits: []string{"ps=block"},
				replicas: []replica{
					{kind: "PS", n: 1, policy: "Never"},
					{kind: "Worker", n: 3, policy: "OnFailure", args: []string{"--wait-for", "worker-0:gate-0,worker-1:gate-0"}},
				}},
			during: map[string]int32{"ps": 1, "worker": 2},
			pods:   []string{"allw-ps-0", "allw-worker-0", "allw-worker-1"},
		},
		{
			// The workers finish before the chief decides: their pods go
			// while it runs.
			name: "chief",
			spec: jobSpec{name: "chiefw", runPolicy: object{"cleanPodPolicy": "All"},
				replicas: []replica{
					{kind: "Chief", n: 1, policy: "ExitCode", args: []string{"--wait-for", "worker-0,worker-1,gate-0"}},
					{kind: "Worker", n: 2, policy: "OnFailure"},
				}},
			during: map[string]int32{"chief": 1, "worker": 0},
			pods:   []string{"chiefw-chief-0"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := getCluster(t)
			r := c.startJob(t, tc.spec, nil)
			r.WaitReplicas(tc.during)
			r.WaitPods(tc.pods...)
			if s := r.Status(); s.Ended() {
				t.Fatalf("status %s: the job ended before its gate opened", r.StatusJSON())
			}
			r.open("gate-0")
			s := r.WaitStatus("the job to end", (*record.Status).Ended)
			ended := time.Now()
			if !s.IsTrue(record.JobSucceeded) {
				t.Fatalf("the job failed: %s", r.StatusJSON())
			}
			want := map[string]int32{}
			for typ := range tc.during {
				want[typ] = 0
			}
			r.WaitReplicas(want)
			r.WaitPods()
			t.Logf("no pod left %v after the job ended", time.Since(ended).Round(time.Millisecond))
			for replica, n := range r.runs() {
				if n != 1 {
					t.Errorf("%s ran %d times, want once", replica, n)
				}
			}
		})
	}
}

// TestKeeperPodDeletedMidTeardown: under cleanPodPolicy All the job's end
// releases the parameter server at once, and the keeper's own type (the
// chief's) waits until the PS has said how it ended; the PS ignores
// SIGTERM, so its pod takes its grace period to go. Meanwhile the
// keeper's pod is deleted: the StatefulSet makes a new one, whose keeper
// finishes the teardown. No pod is left, and nothing trained again.
func TestKeeperPodDeletedMidTeardown(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	r := c.startJob(t, jobSpec{name: "mid", runPolicy: object{"cleanPodPolicy": "All"}, exits: []string{"ps=deaf"},
		replicas: []replica{
			{kind: "Chief", n: 1, policy: "ExitCode", args: []string{"--wait-for", "ps-0,gate-0"}},
			{kind: "PS", n: 1, policy: "Never", template: object{"terminationGracePeriodSeconds": 20}},
		}}, nil)
	r.waitReport("mid-ps-0")
	// The PS trains when the job ends, in the record the keeper reads.
	r.WaitRecord("mid-ps-0", func(rep record.Replica) bool { return rep.State == record.StateRunning })
	r.open("gate-0")
	s := r.WaitStatus("the parameter server released", func(s *record.Status) bool { return slices.Equal(s.Teardown, []string{"ps"}) })
	if !s.IsTrue(record.JobSucceeded) {
		t.Fatalf("status %s: want Succeeded", r.StatusJSON())
	}
	pods := c.cp.Client().CoreV1().Pods(r.Namespace)
	old, err := pods.Get(t.Context(), "mid-chief-0", getOpts)
	if err != nil {
		t.Fatal(err)
	}
	if err := pods.Delete(t.Context(), "mid-chief-0", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "a new chief pod", func(ctx context.Context) (bool, string, error) {
		p, err := pods.Get(ctx, "mid-chief-0", getOpts)
		if apierrors.IsNotFound(err) {
			return false, "none", nil
		}
		return err == nil && p.UID != old.UID, "the old one", err
	})
	r.WaitReplicas(map[string]int32{"chief": 0, "ps": 0})
	r.WaitPods()
	if s := r.Status(); !slices.Equal(s.Teardown, []string{"ps", "chief"}) || !s.IsTrue(record.JobSucceeded) {
		t.Errorf("status %s: want Succeeded, the PS released, then the chief", r.StatusJSON())
	}
	if diff := cmp.Diff(map[string]int{"chief-0": 1, "ps-0": 1}, r.runs()); diff != "" {
		t.Errorf("runs per replica (-want +got):\n%s", diff)
	}
}
