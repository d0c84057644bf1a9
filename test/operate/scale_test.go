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

// TestScale resizes DRAGON's example (job1: a parameter server, 4
// workers, min-instances 1, max-instances 4) while it runs: the new
// layout goes into the job's status and the workers' StatefulSet, the pod
// templates stay as rendered, and no pod that stays is recreated. A
// suspended or ended job, or a count outside min/max, is refused.
func TestScale(t *testing.T) {
	t.Parallel()
	c := newCluster(t, "op-scale")
	c.apply("tfjob-dragon", "job1", true)
	c.job("job1").WaitPods("job1-ps-0", "job1-worker-0", "job1-worker-1", "job1-worker-2", "job1-worker-3")
	uids := c.podUIDs("job1")
	c.writeStatus("job1", func(s *record.Status) {
		s.Start(t0)
		s.SetCondition(record.JobRunning, "JobRunning", "replica ps-0 is running", t0)
	})
	now := t0.Add(time.Hour)
	const roles = "ps:1:2222,worker:4:2222" // as rendered, whatever the count

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
	c.checkScaled("job1", map[string]int32{"ps": 1, "worker": 4}, roles, nil)

	assertGolden(t, "scale.txt", c.must(c.tfgen(now, "scale", "job1", "--workers", "2"), "scale").stdout)
	c.checkScaled("job1", map[string]int32{"ps": 1, "worker": 2}, roles, map[string]int32{"worker": 2})
	c.job("job1").WaitPods("job1-ps-0", "job1-worker-0", "job1-worker-1")
	c.checkKept("job1", uids, "job1-ps-0", "job1-worker-0", "job1-worker-1")
	c.must(c.tfgen(now, "scale", "job1", "--workers", "3"), "scale")
	c.checkScaled("job1", map[string]int32{"ps": 1, "worker": 3}, roles, map[string]int32{"worker": 3})
	c.job("job1").WaitPods("job1-ps-0", "job1-worker-0", "job1-worker-1", "job1-worker-2")
	c.checkKept("job1", uids, "job1-ps-0", "job1-worker-0", "job1-worker-1")
	if s := c.job("job1").Status(); s.LayoutGeneration != 2 {
		t.Errorf("layout generation %d after two resizes, want 2", s.LayoutGeneration)
	}

	// Suspended: refused; resume starts the count the job was resized to.
	c.must(c.tfgen(now, "suspend", "job1"), "suspend")
	if r := c.tfgen(now, "scale", "job1", "--workers", "2"); r.code != 1 || r.stderr != "tfgen: job job1 is suspended: resume it (tfgen resume job1) before resizing it\n" {
		t.Errorf("scale of a suspended job: exit status %d, stderr %q", r.code, r.stderr)
	}
	assertGolden(t, "scale-resume.txt", c.must(c.tfgen(now, "resume", "job1"), "resume").stdout)
	c.checkScaled("job1", map[string]int32{"ps": 1, "worker": 3}, roles, map[string]int32{"worker": 3})
	c.job("job1").WaitPods("job1-ps-0", "job1-worker-0", "job1-worker-1", "job1-worker-2")

	// Once ended, nothing scales.
	c.writeStatus("job1", func(s *record.Status) { s.Finish(false, "DeadlineExceeded", "", now) })
	if r := c.tfgen(now, "scale", "job1", "--workers", "1"); r.code != 1 || r.stderr != "tfgen: job job1 has failed: there is nothing to scale\n" {
		t.Errorf("scale of a failed job: exit status %d, stderr %q", r.code, r.stderr)
	}
}

// podUIDs returns the UIDs of job's pods, by name.
func (c *cluster) podUIDs(job string) map[string]string {
	c.t.Helper()
	pods, err := c.job(job).Pods(c.t.Context())
	if err != nil {
		c.t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range pods {
		out[p.Name] = string(p.UID)
	}
	return out
}

// checkKept fails unless each pod of names is the one it was (uids):
// none was recreated.
func (c *cluster) checkKept(job string, uids map[string]string, names ...string) {
	c.t.Helper()
	now := c.podUIDs(job)
	for _, name := range names {
		if now[name] != uids[name] {
			c.t.Errorf("pod %s was recreated (UID %q, before %q)", name, now[name], uids[name])
		}
	}
}

// checkScaled checks the replicas of job's StatefulSets, the --roles of
// their supervisors (as rendered), and the layout in the job's status.
func (c *cluster) checkScaled(job string, replicas map[string]int32, roles string, layout map[string]int32) {
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
	if got := c.job(job).Status().Layout; !maps.Equal(got, layout) {
		c.t.Errorf("layout in the status: %v, want %v", got, layout)
	}
}
