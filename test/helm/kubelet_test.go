package helm

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// testKubelet runs the chart's test pod in place of the kubelet the control
// plane lacks: it runs the pod's bash script here, with the pod's env and
// a kubeconfig of the pod's ServiceAccount (so the job's Role is what the
// script may use), and writes the pod's phase from its exit status. It
// needs bash, jq and kubectl on PATH, as the test image has them.
type testKubelet struct {
	t       *testing.T
	cp      *controlplane.ControlPlane
	ns, pod string
	// output of the last run.
	output string
}

// helmTest runs `helm test` on the release the test pod belongs to while
// running the pod when it appears.
func (k *testKubelet) helmTest(kube []string) harness.Result {
	t := k.t
	t.Helper()
	for _, tool := range []string{"bash", "jq", "kubectl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the test pod's script needs %s on PATH: %v", tool, err)
		}
	}
	cmd := helm(t)
	done := make(chan harness.Result, 1)
	go func() {
		done <- cmd.Run(nil, append([]string{"test", strings.TrimSuffix(k.pod, "-test"), "--timeout", "2m"}, kube...)...)
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cs := k.cp.Client()
	var pod *corev1.Pod
	for pod == nil {
		select {
		case r := <-done:
			t.Fatalf("helm test ended before its pod ran: %v\n%s", r.Err, r.Stderr)
		case <-ctx.Done():
			t.Fatalf("no test pod %s: %v", k.pod, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
		p, err := cs.CoreV1().Pods(k.ns).Get(ctx, k.pod, metav1.GetOptions{})
		if err == nil && p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodPending {
			pod = p
		} else if err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
	}
	code := k.run(ctx, pod)
	k.setPhase(ctx, cs, pod, code)
	return <-done
}

// run runs the pod's only container here and returns its exit status.
func (k *testKubelet) run(ctx context.Context, pod *corev1.Pod) int {
	t := k.t
	if len(pod.Spec.Containers) != 1 {
		t.Fatalf("test pod has %d containers", len(pod.Spec.Containers))
	}
	c := pod.Spec.Containers[0]
	if len(c.Command) != 3 || c.Command[0] != "/bin/bash" || c.Command[1] != "-c" {
		t.Fatalf("test pod runs %q, not a bash script", c.Command)
	}
	kubeconfig, err := k.cp.ServiceAccountKubeconfig(ctx, k.ns, pod.Spec.ServiceAccountName)
	if err != nil {
		t.Fatal(err)
	}
	env := slices.DeleteFunc(os.Environ(), func(s string) bool { return strings.HasPrefix(s, "KUBECONFIG=") })
	for _, e := range c.Env {
		if e.ValueFrom != nil {
			t.Fatalf("env %s comes from %v: not run here", e.Name, e.ValueFrom)
		}
		env = append(env, e.Name+"="+e.Value)
	}
	home := t.TempDir()
	env = append(env, "KUBECONFIG="+kubeconfig, "HOME="+home)
	cmd := exec.CommandContext(ctx, "bash", "-c", c.Command[2])
	cmd.Env, cmd.Dir = env, home
	out, err := cmd.CombinedOutput()
	k.output = string(out)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.ExitCode()
	}
	t.Fatalf("run the test pod's script: %v", err)
	return -1
}

// setPhase writes the pod's status as a kubelet would once its container
// exited with code.
func (k *testKubelet) setPhase(ctx context.Context, cs kubernetes.Interface, pod *corev1.Pod, code int) {
	now := metav1.Now()
	phase, reason := corev1.PodSucceeded, "Completed"
	if code != 0 {
		phase, reason = corev1.PodFailed, "Error"
	}
	pod.Status.Phase = phase
	pod.Status.StartTime = &now
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{
		Name: pod.Spec.Containers[0].Name, Image: pod.Spec.Containers[0].Image, ImageID: "test://" + pod.Spec.Containers[0].Image,
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: int32(code), Reason: reason, StartedAt: now, FinishedAt: now}},
	}}
	if _, err := cs.CoreV1().Pods(k.ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
		k.t.Fatalf("set test pod %s: %v", phase, err)
	}
}

// failJob records the job as failed, as its supervisors would.
func failJob(t *testing.T, cs kubernetes.Interface, ns, job string) {
	t.Helper()
	var s record.Status
	now := time.Now()
	s.Start(now)
	s.Finish(false, "BackoffLimitExceeded", "worker-1 failed 4 times", now)
	status, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	patch, _ := json.Marshal(map[string]any{"data": map[string]string{record.DataKey: status}})
	if _, err := cs.CoreV1().ConfigMaps(ns).Patch(t.Context(), job, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

func client404(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
