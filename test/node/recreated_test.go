//go:build issue17

package node

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/pkg/record"
)

// TestSidecarPodRecreatedAfterEnd (issue 14's defect 1, fixed by issue
// 17; build tag issue17 until then): in sidecar mode, a pod recreated after
// the job ended (here deleted, as in a drain; cleanPodPolicy None keeps the
// pods) must not train again: the watcher, a native sidecar, holds the
// training container until it has read the record, and the replica idles.
func TestSidecarPodRecreatedAfterEnd(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	r := c.startJob(t, jobSpec{name: "again", runPolicy: object{"cleanPodPolicy": "None"},
		replicas: []replica{{kind: "Worker", n: 1, policy: "ExitCode", sidecar: true}}}, nil)
	if s := r.waitStatus("the job to end", (*record.Status).Ended); !s.IsTrue(record.JobSucceeded) {
		t.Fatalf("the job failed: %s", r.statusJSON())
	}
	pods := c.cp.Client().CoreV1().Pods(r.ns)
	old, err := pods.Get(t.Context(), "again-worker-0", getOpts)
	if err != nil {
		t.Fatal(err)
	}
	if err := pods.Delete(t.Context(), "again-worker-0", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "the new pod idle", func(ctx context.Context) (bool, string, error) {
		p, err := pods.Get(ctx, "again-worker-0", getOpts)
		if err != nil || p.UID == old.UID {
			return false, "the old pod or none", err
		}
		st := p.Annotations["tfgen.io/state"]
		return st == "Idle", fmt.Sprintf("state %q", st), nil
	})
	if diff := cmp.Diff(map[string]int{"worker-0": 1}, r.runs()); diff != "" {
		t.Errorf("runs per replica (-want +got):\n%s", diff)
	}
}
