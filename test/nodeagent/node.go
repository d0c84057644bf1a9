package nodeagent

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
)

// register creates the Node (or takes over one of the same name) and
// makes it Ready.
func (a *Agent) register(ctx context.Context) error {
	now := metav1.Now()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: a.cfg.Node,
		Labels: map[string]string{"kubernetes.io/hostname": a.cfg.Node, "kubernetes.io/os": "linux"}}}
	n, err := a.cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		n, err = a.cs.CoreV1().Nodes().Get(ctx, a.cfg.Node, metav1.GetOptions{})
	}
	if err != nil {
		return fmt.Errorf("nodeagent: register node %s: %w", a.cfg.Node, err)
	}
	status := corev1.NodeStatus{
		Capacity:    a.cfg.Capacity,
		Allocatable: a.cfg.Capacity,
		Phase:       corev1.NodeRunning,
		Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
			Message: "nodeagent is posting ready status", LastHeartbeatTime: now, LastTransitionTime: now}},
		Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: NodeIP}, {Type: corev1.NodeHostName, Address: a.cfg.Node}},
		NodeInfo:  corev1.NodeSystemInfo{OperatingSystem: "linux", Architecture: "amd64", KubeletVersion: "v0.0.0-nodeagent"},
	}
	// The node lifecycle controller may write the new Node meanwhile.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n.Status = status
		_, err := a.cs.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) {
			if fresh, gerr := a.cs.CoreV1().Nodes().Get(ctx, a.cfg.Node, metav1.GetOptions{}); gerr == nil {
				n = fresh
			}
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("nodeagent: node %s status: %w", a.cfg.Node, err)
	}
	return a.renew(ctx)
}

// renew creates or renews the Node's Lease, as the kubelet's heartbeat.
func (a *Agent) renew(ctx context.Context) error {
	leases := a.cs.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	now := metav1.NewMicroTime(time.Now())
	l, err := leases.Get(ctx, a.cfg.Node, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		l = &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: a.cfg.Node},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: &a.cfg.Node,
				LeaseDurationSeconds: new(int32(LeaseDuration / time.Second)), RenewTime: &now}}
		_, err = leases.Create(ctx, l, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	l.Spec.RenewTime = &now
	_, err = leases.Update(ctx, l, metav1.UpdateOptions{})
	return err
}

func (a *Agent) renewLease() {
	defer a.wg.Done()
	t := time.NewTicker(LeaseDuration / 4)
	defer t.Stop()
	for {
		select {
		case <-a.ctx.Done():
			return
		case <-t.C:
			if err := a.renew(a.ctx); err != nil && a.ctx.Err() == nil {
				a.cfg.Logf("nodeagent: renew lease: %v", err)
			}
		}
	}
}
