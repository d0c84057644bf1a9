package operate

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"

	"github.com/tfgen/tfgen/pkg/record"
)

// node is the Node the test binds its pods to; it has no kubelet.
const node = "node-1"

var nodeOnce sync.Once

// ensureNode creates the Node, Ready, once per package: pods bound to a
// Node that does not exist would be collected as orphans.
func (c *cluster) ensureNode() {
	c.t.Helper()
	var err error
	nodeOnce.Do(func() {
		// Tainted, so that the scheduler places the node agent's pods
		// elsewhere; the test's own pods are bound without it.
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node},
			Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "tfgen.test/manual", Effect: corev1.TaintEffectNoSchedule}}}}
		if _, err = c.cs.CoreV1().Nodes().Create(context.Background(), n, metav1.CreateOptions{}); err != nil {
			return
		}
		err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
			n, err := c.cs.CoreV1().Nodes().Get(context.Background(), node, metav1.GetOptions{})
			if err != nil {
				return err
			}
			now := metav1.Now()
			n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				LastHeartbeatTime: now, LastTransitionTime: now}}
			_, err = c.cs.CoreV1().Nodes().UpdateStatus(context.Background(), n, metav1.UpdateOptions{})
			return err
		})
	})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		c.t.Fatal(err)
	}
}

// podState is what the test, as the kubelet, writes for a pod.
type podState struct {
	// phase of the pod.
	phase corev1.PodPhase
	// waiting, when set, is the training container's waiting reason;
	// else it runs.
	waiting string
	// restarts is the container's restartCount.
	restarts int32
	// lastExit, when set, is its last termination's exit code.
	lastExit *int32
}

var (
	running = podState{phase: corev1.PodRunning}
	pulling = podState{phase: corev1.PodPending, waiting: "ErrImagePull"}
)

// kubelet binds job's pods to the Node and writes their status, as
// states says (pods not named there stay Pending and unbound).
func (c *cluster) kubelet(states map[string]podState) {
	c.t.Helper()
	c.ensureNode()
	ctx := c.t.Context()
	for name, st := range states {
		b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: name}, Target: corev1.ObjectReference{Kind: "Node", Name: node}}
		if err := c.cs.CoreV1().Pods(c.ns).Bind(ctx, b, metav1.CreateOptions{}); err != nil {
			c.t.Fatalf("bind %s: %v", name, err)
		}
		p, err := c.cs.CoreV1().Pods(c.ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			c.t.Fatal(err)
		}
		started := metav1.NewTime(t0)
		p.Status.Phase, p.Status.StartTime = st.phase, &started
		p.Status.ContainerStatuses = nil
		for _, ct := range p.Spec.Containers {
			cs := corev1.ContainerStatus{Name: ct.Name, Image: ct.Image, RestartCount: st.restarts}
			if st.waiting != "" {
				cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: st.waiting}
			} else {
				cs.State.Running = &corev1.ContainerStateRunning{StartedAt: started}
				cs.Ready, cs.Started = true, new(true)
			}
			if st.lastExit != nil {
				cs.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: *st.lastExit, Reason: "Error",
					StartedAt: started, FinishedAt: metav1.NewTime(t0.Add(time.Minute))}
			}
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, cs)
		}
		if _, err := c.cs.CoreV1().Pods(c.ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
			c.t.Fatalf("status of %s: %v", name, err)
		}
	}
}

// supervisors writes each pod's record, as its supervisor would.
func (c *cluster) supervisors(records map[string]record.Replica) {
	c.t.Helper()
	for name, rec := range records {
		patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": rec.Annotations()}})
		if err != nil {
			c.t.Fatal(err)
		}
		if _, err := c.cs.CoreV1().Pods(c.ns).Patch(c.t.Context(), name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			c.t.Fatalf("record of %s: %v", name, err)
		}
	}
}
