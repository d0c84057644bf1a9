package operate

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/pkg/operate"
	"github.com/tfgen/tfgen/pkg/record"
)

// TestScale scales DRAGON's example (job1: a parameter server, 4 workers,
// min-instances 1, max-instances 4) while running and while suspended.
func TestScale(t *testing.T) {
	t.Parallel()
	c := newCluster(t, "op-scale")
	c.apply("tfjob-dragon", "job1", true)
	c.job("job1").WaitPods("job1-ps-0", "job1-worker-0", "job1-worker-1", "job1-worker-2", "job1-worker-3")
	c.writeStatus("job1", func(s *record.Status) {
		s.Start(t0)
		s.SetCondition(record.JobRunning, "JobRunning", "replica ps-0 is running", t0)
	})
	now := t0.Add(time.Hour)

	for _, n := range []string{"5", "0"} {
		r := c.tfgen(now, "scale", "job1", "--workers", n)
		want := "tfgen: job job1 runs 1 to 4 workers (its minInstances and maxInstances), not " + n + "\n"
		if r.code != 1 || r.stdout != "" || r.stderr != want {
			t.Errorf("scale --workers %s: exit status %d, stdout %q, stderr %q; want 1, nothing, %q", n, r.code, r.stdout, r.stderr, want)
		}
	}
	if r := c.tfgen(now, "scale", "job1"); r.code != 1 || r.stderr != "tfgen: --workers N is required (0 or more)\n" {
		t.Errorf("scale without --workers: exit status %d, stderr %q", r.code, r.stderr)
	}
	c.checkScaled("job1", map[string]int32{"ps": 1, "worker": 4}, "ps:1:2222,worker:4:2222", "")

	assertGolden(t, "scale.txt", c.must(c.tfgen(now, "scale", "job1", "--workers", "2"), "scale").stdout)
	c.checkScaled("job1", map[string]int32{"ps": 1, "worker": 2}, "ps:1:2222,worker:2:2222", `{"worker":2}`)
	c.job("job1").WaitPods("job1-ps-0", "job1-worker-0", "job1-worker-1")

	// Suspended: the count is recorded, the StatefulSet stays at zero, and
	// resume starts that many.
	c.must(c.tfgen(now, "suspend", "job1"), "suspend")
	assertGolden(t, "scale-suspended.txt", c.must(c.tfgen(now, "scale", "job1", "--workers", "3"), "scale").stdout)
	c.checkScaled("job1", map[string]int32{"ps": 0, "worker": 0}, "ps:1:2222,worker:3:2222", `{"worker":3}`)
	assertGolden(t, "scale-resume.txt", c.must(c.tfgen(now, "resume", "job1"), "resume").stdout)
	c.checkScaled("job1", map[string]int32{"ps": 1, "worker": 3}, "ps:1:2222,worker:3:2222", `{"worker":3}`)
	c.job("job1").WaitPods("job1-ps-0", "job1-worker-0", "job1-worker-1", "job1-worker-2")

	// Once ended, nothing scales.
	c.writeStatus("job1", func(s *record.Status) { s.Finish(false, "DeadlineExceeded", "", now) })
	if r := c.tfgen(now, "scale", "job1", "--workers", "1"); r.code != 1 || r.stderr != "tfgen: job job1 has failed: there is nothing to scale\n" {
		t.Errorf("scale of a failed job: exit status %d, stderr %q", r.code, r.stderr)
	}
}

// checkScaled checks the replicas of job's StatefulSets, the --roles of
// their supervisors, and the count in the record.
func (c *cluster) checkScaled(job string, replicas map[string]int32, roles, recorded string) {
	c.t.Helper()
	if got := c.job(job).Replicas(); !maps.Equal(got, replicas) {
		c.t.Errorf("replicas: %v, want %v", got, replicas)
	}
	ctx := context.Background()
	list, err := c.cs.AppsV1().StatefulSets(c.ns).List(ctx, metav1.ListOptions{LabelSelector: operate.JobSelector(job)})
	if err != nil {
		c.t.Fatal(err)
	}
	for _, s := range list.Items {
		cmd := s.Spec.Template.Spec.Containers[0].Command
		i := slices.Index(cmd, "--roles")
		if i < 0 || i+1 >= len(cmd) || cmd[i+1] != roles {
			c.t.Errorf("statefulset %s: supervisor command %s, want --roles %s", s.Name, strings.Join(cmd, " "), roles)
		}
	}
	cm, err := c.cs.CoreV1().ConfigMaps(c.ns).Get(ctx, job, metav1.GetOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	if got := cm.Annotations[operate.ReplicasAnnotation]; got != recorded {
		c.t.Errorf("record annotation %s: %q, want %q", operate.ReplicasAnnotation, got, recorded)
	}
}
