package operate

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/test/harness"
	"github.com/tfgen/tfgen/test/nodeagent"
)

// smallNode is the Node of TestElastic: room for four of its workers
// (900m of CPU each), tainted so that no other test's pod lands there.
const smallNode = "small"

// elasticJob is DRAGON job name of the small node, of lo to hi
// workers: its workers print the TF_CONFIG of each run to
// dir/POD.tfconfig and train until dir/NAME.done exists, then exit 0.
func elasticJob(name string, lo, hi int32, dir string) []byte {
	return testjob.New(name).Edit(func(j *job.Job) { j.MinInstances, j.MaxInstances = &lo, &hi }).
		Replica(job.Worker, hi, testjob.RestartPolicy(job.RestartOnFailure), testjob.Image("tfgen.test/shell:1"),
			testjob.Shell(`printf "%s\n" "$TF_CONFIG" >> "$DIR/$POD_NAME.tfconfig"; while [ ! -e "$DIR/`+name+`.done" ]; do sleep 0.2; done`),
			testjob.Env("DIR", dir),
			testjob.Container(func(c *corev1.Container) {
				c.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("900m")}
			}),
			testjob.Pod(func(p *corev1.PodSpec) {
				p.NodeSelector = map[string]string{"kubernetes.io/hostname": smallNode}
				p.Tolerations = []corev1.Toleration{{Key: "tfgen.test/small", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
				p.TerminationGracePeriodSeconds = new(int64(2))
			})).
		YAML()
}

// startSmallNode starts a node agent for the small node.
func startSmallNode(t *testing.T, c *cluster) {
	t.Helper()
	a, err := nodeagent.Start(context.Background(), nodeagent.Config{
		RestConfig: c.cp.RestConfig(), Node: smallNode, Dir: filepath.Join(scratch, smallNode),
		Images: map[string]nodeagent.Image{
			"ghcr.io/tfgen/tfsupervisor": {Files: map[string]string{"/tfsupervisor": bins.tfsupervisor, "/tfsupervisor-wrap": bins.tfsupervisor}},
			shellImage:                   {},
		},
		Backoff: 200 * time.Millisecond, MaxBackoff: 2 * time.Second,
		Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16Gi"),
			corev1.ResourcePods: resource.MustParse("110")},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Stop)
	harness.Retry(t.Context(), func(ctx context.Context) error {
		n, err := c.cs.CoreV1().Nodes().Get(ctx, smallNode, metav1.GetOptions{})
		if err != nil {
			return err
		}
		n.Spec.Taints = []corev1.Taint{{Key: "tfgen.test/small", Value: "true", Effect: corev1.TaintEffectNoSchedule}}
		_, err = c.cs.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		return err
	})
}

// tfConfigWorkers returns the workers named in each run's TF_CONFIG of
// pod, in order.
func tfConfigWorkers(dir, pod string) []int {
	b, _ := os.ReadFile(filepath.Join(dir, pod+".tfconfig"))
	var out []int
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var cfg struct {
			Cluster map[string]json.RawMessage `json:"cluster"`
		}
		if json.Unmarshal([]byte(l), &cfg) != nil {
			continue
		}
		var dense []string
		if json.Unmarshal(cfg.Cluster["worker"], &dense) == nil {
			out = append(out, len(dense))
		}
	}
	return out
}

// TestElastic: two DRAGON jobs on a node with room for four workers. Job
// A (min 1, max 4) runs four; job B (min and max 2) waits. After 30 s A
// gives B the two workers it lacks and B runs; once B has finished, A
// grows back to four, one worker at a time, each after 60 s without a pod
// coming or going. None of A's pods that stay is recreated, and each
// resize gives A's workers their new TF_CONFIG in place (the dense form:
// every worker named).
func TestElastic(t *testing.T) {
	t.Parallel()
	c := newCluster(t, "op-elastic")
	startSmallNode(t, c)
	dir := t.TempDir()
	apply := func(name string, lo, hi int32) {
		c.applyYAML(elasticJob(name, lo, hi, dir), false)
	}
	a, b := c.job("ela").Within(5*time.Minute), c.job("elb").Within(5*time.Minute)
	training := func(job string, n int, pods ...string) {
		c.t.Helper()
		harness.Poller{Interval: 200 * time.Millisecond, Timeout: 5 * time.Minute}.Poll(t, fmt.Sprintf("%s: %v training with %d workers", job, pods, n),
			func(context.Context) (bool, string, error) {
				for _, pod := range pods {
					if runs := tfConfigWorkers(dir, pod); len(runs) == 0 || runs[len(runs)-1] != n {
						return false, fmt.Sprintf("%s: %v", pod, runs), nil
					}
				}
				return true, "", nil
			})
	}
	apply("ela", 1, 4)
	a.WaitReplicas(map[string]int32{"worker": 4})
	training("ela", 4, "ela-worker-0", "ela-worker-1", "ela-worker-2", "ela-worker-3")
	uids := c.podUIDs("ela")

	apply("elb", 2, 2)
	a.WaitReplicas(map[string]int32{"worker": 2})
	training("elb", 2, "elb-worker-0", "elb-worker-1")
	training("ela", 2, "ela-worker-0", "ela-worker-1")
	c.checkKept("ela", uids, "ela-worker-0", "ela-worker-1")
	if reasons := a.EventReasons(""); !slices.Contains(reasons, "ElasticResize") {
		t.Errorf("events of ela %v: no ElasticResize", reasons)
	}

	if err := os.WriteFile(filepath.Join(dir, "elb.done"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	b.WaitReplicas(map[string]int32{"worker": 0})
	a.WaitReplicas(map[string]int32{"worker": 4})
	training("ela", 4, "ela-worker-0", "ela-worker-1", "ela-worker-2", "ela-worker-3")
	c.checkKept("ela", uids, "ela-worker-0", "ela-worker-1")
	if s := a.Status(); s.Restarts != 0 || s.Ended() {
		t.Errorf("ela's status %s: want it running, no restart counted for its resizes", a.StatusJSON())
	}
	// Worker 0 ran with 4 workers, then fewer down to 2 (in one step, or
	// in two when B's second pod came to wait after the first was given
	// room), then 3 and 4 as the job grew back one at a time.
	runs := tfConfigWorkers(dir, "ela-worker-0")
	shrink := slices.Index(runs, 2)
	if len(runs) < 4 || runs[0] != 4 || shrink < 1 || !slices.Equal(runs[shrink:], []int{2, 3, 4}) ||
		!slices.IsSortedFunc(runs[:shrink+1], func(a, b int) int { return b - a }) {
		t.Errorf("ela-worker-0's runs had %v workers, want 4, fewer down to 2, then 3 and 4", runs)
	}
}
