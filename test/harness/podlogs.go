package harness

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// PodLogs is every container's log (the current and the previous run) of
// every pod in namespace ns, as kubectl logs gives it (as kubeconfig's
// user), and the pods' status: what a failed test on a real node shows.
func PodLogs(cs kubernetes.Interface, kubectl Kubectl, kubeconfig, ns string) string {
	var b strings.Builder
	pods, err := cs.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return err.Error()
	}
	for _, p := range pods.Items {
		var ctrs []string
		for _, s := range append(p.Status.InitContainerStatuses, p.Status.ContainerStatuses...) {
			ctrs = append(ctrs, fmt.Sprintf("%s(restarts %d, %+v)", s.Name, s.RestartCount, s.State))
		}
		fmt.Fprintf(&b, "--- pod %s: %s %v\n", p.Name, p.Status.Phase, ctrs)
		for _, ctr := range append(p.Spec.InitContainers, p.Spec.Containers...) {
			for _, prev := range []bool{true, false} {
				r := kubectl.Run(kubeconfig, nil, "logs", "-n", ns, p.Name, "-c", ctr.Name, fmt.Sprintf("--previous=%t", prev))
				if r.Err == nil && r.Stdout != "" {
					fmt.Fprintf(&b, "--- %s/%s (previous %t):\n%s", p.Name, ctr.Name, prev, r.Stdout)
				}
			}
		}
	}
	return b.String()
}
