package operate

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/tfgen/tfgen/pkg/record"
)

// TestSuspendResume suspends a running job and resumes it, and refuses
// both where they make no sense.
func TestSuspendResume(t *testing.T) {
	t.Parallel()
	c := newCluster(t, "op-suspend")
	c.pendingJob("train")
	c.succeededJob("done")
	c.failedJob("broken")
	src := strings.Replace(readExample(t, "tfjob-mnist"), "  runPolicy:\n", "  runPolicy:\n    suspend: true\n", 1)
	c.applyYAML([]byte(strings.Replace(src, "  name: mnist\n", "  name: later\n", 1)), true)
	all := map[string]int32{"chief": 1, "ps": 2, "worker": 3}

	r := c.must(c.tfgen(t0.Add(15*time.Minute), "suspend", "train"), "suspend")
	assertGolden(t, "suspend.txt", r.stdout)
	if got := c.job("train").Replicas(); !maps.Equal(got, map[string]int32{"chief": 0, "ps": 0, "worker": 0}) {
		t.Errorf("replicas after suspend: %v, want all 0", got)
	}
	c.job("train").WaitPods()
	assertGolden(t, "suspend-status.txt", c.must(c.tfgen(t0.Add(20*time.Minute), "status", "train"), "status").stdout)
	assertGolden(t, "suspend-again.txt", c.must(c.tfgen(t0.Add(16*time.Minute), "suspend", "train"), "suspend again").stdout)

	r = c.must(c.tfgen(t0.Add(30*time.Minute), "resume", "train"), "resume")
	assertGolden(t, "resume.txt", r.stdout)
	if got := c.job("train").Replicas(); !maps.Equal(got, all) {
		t.Errorf("replicas after resume: %v, want %v", got, all)
	}
	c.job("train").WaitPods(mnistPods("train")...)
	assertGolden(t, "resume-status.txt", c.must(c.tfgen(t0.Add(31*time.Minute), "status", "train"), "status").stdout)
	s := c.job("train").Status()
	if s.StartTime == nil || !s.StartTime.Equal(record.NewTime(t0.Add(30*time.Minute))) {
		t.Errorf("startTime after resume: %v, want the resume's time (the active deadline counts from it)", s.StartTime)
	}

	// A job rendered with runPolicy.suspend starts at zero and is resumed
	// to its spec's counts.
	if got := c.job("later").Replicas(); !maps.Equal(got, map[string]int32{"chief": 0, "ps": 0, "worker": 0}) {
		t.Errorf("replicas rendered suspended: %v, want all 0", got)
	}
	assertGolden(t, "suspend-rendered-list.txt", c.must(c.tfgen(c.ages(time.Hour), "list"), "list").stdout)
	c.must(c.tfgen(t0, "resume", "later"), "resume later")
	if got := c.job("later").Replicas(); !maps.Equal(got, all) {
		t.Errorf("replicas after resume: %v, want %v", got, all)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"resume", "train"}, "tfgen: job train is not suspended (it is Created)\n"},
		{[]string{"suspend", "done"}, "tfgen: job done has succeeded: there is nothing to suspend\n"},
		{[]string{"resume", "broken"}, "tfgen: job broken has failed: there is nothing to resume\n"},
	} {
		r := c.tfgen(t0, tc.args...)
		if r.code != 1 || r.stdout != "" || r.stderr != tc.want {
			t.Errorf("tfgen %s: exit status %d, stdout %q, stderr %q; want 1, nothing, %q", strings.Join(tc.args, " "), r.code, r.stdout, r.stderr, tc.want)
		}
	}
	if got := c.job("done").Replicas(); !maps.Equal(got, map[string]int32{"chief": 1, "ps": 0, "worker": 3}) {
		t.Errorf("a refused suspend changed replicas: %v", got)
	}
}
