package scheduling

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
	"github.com/tfgen/tfgen/test/nodeagent"
)

// nodeCPU is each node's CPU.
const nodeCPU = "4"

// nodes are the two nodes and their zones.
var nodes = []struct{ name, zone string }{{"node-a", "zone-a"}, {"node-b", "zone-b"}}

// agents run the nodes, started by the first test that needs them.
var agents [2]harness.Agent

// startNodes starts the node agents (once) and labels each Node with its
// zone, as a cloud's node controller would.
func startNodes(t *testing.T, cp *controlplane.ControlPlane) {
	t.Helper()
	for i, n := range nodes {
		agents[i].Start(t, func() nodeagent.Config {
			return nodeagent.Config{
				RestConfig: cp.RestConfig(),
				Node:       n.name,
				Dir:        filepath.Join(scratch, n.name),
				Capacity: corev1.ResourceList{
					corev1.ResourceCPU:    resource.MustParse(nodeCPU),
					corev1.ResourceMemory: resource.MustParse("16Gi"),
					corev1.ResourcePods:   resource.MustParse("110"),
				},
				Backoff:    200 * time.Millisecond,
				MaxBackoff: 2 * time.Second,
			}
		})
		patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{corev1.LabelTopologyZone: n.zone}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cp.Client().CoreV1().Nodes().Patch(t.Context(), n.name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatalf("label node %s: %v", n.name, err)
		}
	}
}
