package operate

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/pkg/operate"
	"github.com/tfgen/tfgen/test/harness"
)

// installPodGroupCRD installs Volcano's PodGroup CRD and waits until it
// is served.
func (c *cluster) installPodGroupCRD() {
	c.t.Helper()
	kc := c.cp.Kubeconfig()
	for _, args := range [][]string{
		{"apply", "-f", filepath.Join("testdata", "podgroup-crd.yaml")},
		{"wait", "--for=condition=Established", "--timeout=60s", "crd/podgroups.scheduling.volcano.sh"},
	} {
		if out, err := exec.Command("kubectl", append(args, "--kubeconfig", kc)...).CombinedOutput(); err != nil {
			c.t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// TestDelete deletes a running job, a gang-scheduled one with its
// PodGroup, and one whose pods cannot go (no kubelet) within --timeout.
func TestDelete(t *testing.T) {
	t.Parallel()
	c := newCluster(t, "op-delete")
	c.installPodGroupCRD()
	c.runningJob("running")
	c.failedJob("keep")
	c.applyYAML([]byte(strings.Replace(readExample(t, "tfjob-gang"), "  namespace: research\n", "", 1)), true, "--gang-scheduler", "volcano")
	c.pendingJob("stuck")
	c.kubelet(map[string]podState{"stuck-chief-0": running})
	now := t0.Add(time.Hour)

	// Pods bound to node-1 go only with grace period 0: it has no kubelet.
	r := c.must(c.tfgen(now, "delete", "running", "--grace-period", "0"), "delete")
	assertGolden(t, "delete.txt", r.stdout)
	c.noObjects("running")
	r = c.must(c.tfgen(now, "delete", "bert"), "delete")
	assertGolden(t, "delete-gang.txt", r.stdout)
	c.noObjects("bert")

	r = c.tfgen(now, "delete", "stuck", "--timeout", "1s")
	const want = "tfgen: job stuck: pod/stuck-chief-0 still there after 1s\n"
	if r.code != 1 || r.stderr != want || !strings.Contains(r.stdout, "pod/stuck-chief-0 deleted\n") {
		t.Errorf("delete with a pod that cannot go: exit status %d, stderr %q, want 1, %q\nstdout:\n%s", r.code, r.stderr, want, r.stdout)
	}

	r = c.tfgen(now, "delete", "running")
	if want := `tfgen: job "running" not found in namespace "op-delete"` + "\n"; r.code != 1 || r.stderr != want {
		t.Errorf("delete again: exit status %d, stderr %q, want 1, %q", r.code, r.stderr, want)
	}
	if r := c.tfgen(now, "status", "keep"); r.code != 0 {
		t.Errorf("another job is gone: %s", r.stderr)
	}
}

// noObjects checks that no object of job is left, of any kind tfgen
// renders.
func (c *cluster) noObjects(job string) {
	c.t.Helper()
	ctx := context.Background()
	sel := metav1.ListOptions{LabelSelector: operate.JobSelector(job)}
	for kind, gvr := range resources {
		list, err := c.dyn.Resource(gvr).Namespace(c.ns).List(ctx, sel)
		if apierrors.IsNotFound(err) { // a CRD not installed
			continue
		}
		if err != nil {
			c.t.Fatalf("list %s: %v", kind, err)
		}
		for _, o := range list.Items {
			c.t.Errorf("%s %s is left after delete", kind, o.GetName())
		}
	}
	if pods, err := c.job(job).Pods(ctx); err != nil || len(pods) > 0 {
		c.t.Errorf("pods left after delete: %v %v", harness.PodNames(pods), err)
	}
}
