package scheduling

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// dragonJob is DRAGON's job (seed 003) at this cluster's scale: one
// parameter server and four workers of 900m CPU each (910m with
// tfsupervisor's sidecar), four of which fit on a node, not five.
func dragonJob() []byte {
	train := []testjob.Option{testjob.Image("tfgen.test/train:1"), testjob.Command("python", "train.py"),
		testjob.Container(func(c *corev1.Container) {
			c.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("900m")}
		})}
	return testjob.New("dragon").Edit(func(j *job.Job) { j.MinInstances, j.MaxInstances = new(int32(1)), new(int32(4)) }).
		Replica(job.PS, 1, train...).Replica(job.Worker, 4, train...).YAML()
}

// workersBesidePS is how many workers fit on the parameter server's node.
const workersBesidePS = 3

// TestLocality: with locality (DRAGON's default, node; or zone), kube-scheduler
// puts the workers on the parameter server's node while it has room, and
// the rest on the other node; with none it spreads them, and the
// parameter server's node is left with room while workers go elsewhere.
//
// The workers come once the parameter server has its node, as when DRAGON
// scales a job up "to where the parameter server is located"; the nodes
// are empty at first, so where the parameter server goes is the
// scheduler's choice.
func TestLocality(t *testing.T) {
	cp := controlplane.Shared(t)
	startNodes(t, cp)
	workers := []string{"dragon-worker-0", "dragon-worker-1", "dragon-worker-2", "dragon-worker-3"}
	for _, tc := range []struct {
		name  string
		flags []string
		near  bool
	}{
		{"DRAGON job: node by default", nil, true},
		{"zone", []string{"--locality", "zone"}, true},
		{"none", []string{"--locality", "none"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := harness.Namespace(t, cp.Client(), "locality", nil)
			j := &harness.Job{T: t, Client: cp.Client(), Namespace: ns, Name: "dragon", Timeout: 2 * time.Minute}
			defer empty(t, j)
			objs := render(t, ns, tc.flags...)
			isWorkers := func(o harness.Object) bool { return o["kind"] == "StatefulSet" && name(o) == "dragon-worker" }
			apply(t, cp, slices.DeleteFunc(slices.Clone(objs), isWorkers))
			psNode := j.WaitNodes("dragon-ps-0")["dragon-ps-0"]
			apply(t, cp, slices.DeleteFunc(objs, func(o harness.Object) bool { return !isWorkers(o) }))
			placed := j.WaitNodes(workers...)

			beside := 0
			for _, w := range workers {
				if placed[w] == psNode {
					beside++
				}
			}
			t.Logf("ps-0 on %s; workers: %v", psNode, placements(placed))
			switch {
			case tc.near && beside != workersBesidePS:
				t.Errorf("%d workers on the parameter server's node %s, want %d (as many as fit), the rest on the other: %v",
					beside, psNode, workersBesidePS, placements(placed))
			case !tc.near && beside >= workersBesidePS:
				t.Errorf("%d workers on the parameter server's node %s without locality, want fewer (spread): %v", beside, psNode, placements(placed))
			}
		})
	}
}

// render renders dragonJob into namespace ns with tfgen render and flags.
func render(t *testing.T, ns string, flags ...string) []harness.Object {
	t.Helper()
	out := cli.Tfgen.Must(t, dragonJob(), append([]string{"render", "-f", "-", "-n", ns}, flags...)...)
	objs, ok, err := harness.DecodeObjects(out)
	if err != nil || !ok {
		t.Fatalf("tfgen render: %v\n%s", err, out)
	}
	return objs
}

// apply creates objs with kubectl apply.
func apply(t *testing.T, cp *controlplane.ControlPlane, objs []harness.Object) {
	t.Helper()
	list, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": objs})
	if err != nil {
		t.Fatal(err)
	}
	cli.Kubectl.Must(t, cp.Kubeconfig(), list, "apply", "-f", "-")
}

// empty deletes the job's StatefulSets and waits until its pods are gone,
// so that the next test finds the nodes empty.
func empty(t *testing.T, j *harness.Job) {
	t.Helper()
	background := metav1.DeletePropagationBackground
	sets := j.Client.AppsV1().StatefulSets(j.Namespace)
	if err := sets.DeleteCollection(context.Background(), metav1.DeleteOptions{PropagationPolicy: &background}, metav1.ListOptions{}); err != nil {
		t.Fatalf("delete the StatefulSets: %v", err)
	}
	j.WaitPods()
}

func name(o harness.Object) string {
	meta, _ := o["metadata"].(map[string]any)
	n, _ := meta["name"].(string)
	return n
}

// placements lists pod=node, sorted.
func placements(nodes map[string]string) []string {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(nodes)) {
		out = append(out, fmt.Sprintf("%s=%s", p, nodes[p]))
	}
	return out
}
