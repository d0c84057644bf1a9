package operate

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/pkg/operate"
	"github.com/tfgen/tfgen/pkg/record"
)

// TestViews: list, status and logs of a running, a succeeded, a failed and
// a suspended job.
func TestViews(t *testing.T) {
	t.Parallel()
	c := newCluster(t, "op-view")
	c.runningJob("running")
	c.succeededJob("succeeded")
	c.failedJob("failed")
	c.pendingJob("suspended")
	c.must(c.tfgen(t0.Add(15*time.Minute), "suspend", "suspended"), "suspend")
	c.job("suspended").WaitPods()

	t.Run("list", func(t *testing.T) {
		r := c.must(c.tfgen(c.ages(30*time.Minute), "list"), "list")
		assertGolden(t, "list.txt", r.stdout)
	})
	t.Run("list all namespaces", func(t *testing.T) {
		r := c.must(c.tfgen(time.Now(), "list", "-A"), "list -A")
		lines := strings.Split(r.stdout, "\n")
		if !strings.HasPrefix(lines[0], "NAMESPACE ") {
			t.Errorf("header %q: want NAMESPACE first", lines[0])
		}
		var got []string
		for _, l := range lines {
			if f := strings.Fields(l); len(f) > 2 && f[0] == c.ns {
				got = append(got, f[1]+" "+f[2])
			}
		}
		want := []string{"failed Failed", "running Running", "succeeded Succeeded", "suspended Suspended"}
		if !slices.Equal(got, want) {
			t.Errorf("jobs of %s in list -A: got %q, want %q\n%s", c.ns, got, want, r.stdout)
		}
	})
	t.Run("kubectl plugin", func(t *testing.T) {
		cmd := exec.Command("kubectl", "tfjob", "list", "-n", c.ns, "--kubeconfig", c.cp.Kubeconfig())
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bins.plugin)+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl tfjob list: %v\n%s", err, out)
		}
		want, err := os.ReadFile(filepath.Join("testdata", "list.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := withoutAge(string(out)), withoutAge(string(want)); !slices.Equal(got, want) {
			t.Errorf("kubectl tfjob list (without AGE): got\n%q\nwant\n%q", got, want)
		}
	})

	now := t0.Add(25 * time.Minute)
	for _, job := range []string{"running", "succeeded", "failed", "suspended"} {
		t.Run("status "+job, func(t *testing.T) {
			assertGolden(t, "status-"+job+".txt", c.must(c.tfgen(now, "status", job), "status").stdout)
		})
	}
	for _, tc := range []struct{ job, format string }{{"running", "yaml"}, {"failed", "json"}, {"suspended", "yaml"}} {
		t.Run("status -o "+tc.format+" "+tc.job, func(t *testing.T) {
			r := c.must(c.tfgen(now, "status", tc.job, "-o", tc.format), "status -o")
			assertGolden(t, "status-"+tc.job+"."+tc.format, c.sameCreation(tc.job, r.stdout))
		})
	}

	// The API server asks the kubelet for logs, and node-1 has none.
	t.Run("logs", func(t *testing.T) {
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"logs", "running"}, "tfgen: logs of replica chief-0 (pod running-chief-0, container tensorflow): "},
			{[]string{"logs", "running", "--replica", "worker-9"}, "tfgen: replica worker-9 of job running has no pod, and none of its output was kept (the output of 256 replicas at most is kept, failed ones first; in sidecar mode only that of failed containers)\n"},
			{[]string{"logs", "failed", "--all"}, "tfgen: job failed has no pods, and no output of its replicas was kept\n"},
			{[]string{"logs", "running", "--replica", "worker-1", "--all"}, "tfgen: --replica and --all: give one\n"},
		} {
			r := c.tfgen(now, tc.args...)
			if r.code != 1 || r.stdout != "" || !strings.HasPrefix(r.stderr, tc.want) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("tfgen %s: exit status %d, stdout %q, stderr %q; want 1, nothing, one line starting %q",
					strings.Join(tc.args, " "), r.code, r.stdout, r.stderr, tc.want)
			}
		}
	})
}

// creationLine is the job's creationTimestamp as -o yaml|json prints it.
var creationLine = regexp.MustCompile(`("?creationTimestamp"?: )"[^"]*"`)

// sameCreation returns status, printed with -o yaml|json, with the
// creationTimestamp of job's record, which must be there, as the golden
// files have it: RECORD-CREATED, there and wherever else it appears.
func (c *cluster) sameCreation(job, status string) string {
	c.t.Helper()
	cm, err := c.cs.CoreV1().ConfigMaps(c.ns).Get(c.t.Context(), job, metav1.GetOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	want := cm.CreationTimestamp.UTC().Format(time.RFC3339)
	if m := creationLine.FindStringSubmatch(status); m == nil || !strings.Contains(m[0], want) {
		c.t.Errorf("status of %s: creationTimestamp %q, want the record's %s", job, m, want)
	}
	return strings.ReplaceAll(status, want, "RECORD-CREATED")
}

// TestStatusFromTheFirstMoment: a job whose pods have not started (no
// node takes them) reads as a Kubeflow TFJob that is Created.
func TestStatusFromTheFirstMoment(t *testing.T) {
	t.Parallel()
	c := newCluster(t, "op-first")
	c.apply("tfjob-mnist", "fresh", true)
	c.job("fresh").WaitPods(mnistPods("fresh")...)
	r := c.must(c.tfgen(t0, "status", "fresh", "-o", "json"), "status -o json")
	assertGolden(t, "status-fresh.json", c.sameCreation("fresh", r.stdout))
	var v operate.View
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatal(err)
	}
	if c := v.Status.Condition(record.JobCreated); v.Status.State != "Created" || c == nil || c.Status != record.ConditionTrue {
		t.Errorf("state %s, conditions %+v: want Created, and the condition Created True", v.Status.State, v.Status.Conditions)
	}
}

// ages returns a clock at d after the newest record of the namespace,
// for the AGE column: the records are created less than a minute apart,
// so that every job shows d.
func (c *cluster) ages(d time.Duration) time.Time {
	c.t.Helper()
	list, err := c.cs.CoreV1().ConfigMaps(c.ns).List(c.t.Context(), metav1.ListOptions{LabelSelector: operate.RecordSelector()})
	if err != nil || len(list.Items) == 0 {
		c.t.Fatalf("records: %v", err)
	}
	oldest, newest := list.Items[0].CreationTimestamp.Time, list.Items[0].CreationTimestamp.Time
	for _, cm := range list.Items {
		if t := cm.CreationTimestamp.Time; t.Before(oldest) {
			oldest = t
		} else if t.After(newest) {
			newest = t
		}
	}
	if newest.Sub(oldest) >= time.Minute {
		c.t.Fatalf("records created %v apart: AGE would differ", newest.Sub(oldest))
	}
	return newest.Add(d)
}

// withoutAge returns a table's rows as fields, without the AGE column.
func withoutAge(table string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(table), "\n") {
		f := strings.Fields(l)
		if len(f) > 2 {
			f = append(f[:2], f[3:]...)
		}
		out = append(out, strings.Join(f, " "))
	}
	return out
}
