package nodeagent

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// token requests a token of ServiceAccount sa bound to pod, valid for an
// hour, as the kubelet does for the projected token volume.
func (a *Agent) token(ctx context.Context, pod *corev1.Pod, sa string) (string, error) {
	tr, err := a.cs.CoreV1().ServiceAccounts(pod.Namespace).CreateToken(ctx, sa, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{
			ExpirationSeconds: new(int64(time.Hour / time.Second)),
			BoundObjectRef:    &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID},
		}}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("token of serviceaccount %s/%s: %w", pod.Namespace, sa, err)
	}
	return tr.Status.Token, nil
}

// secretToken reads the token of a ServiceAccount token Secret, waiting
// (as the kubelet retries the mount) until the token controller filled it.
func (a *Agent) secretToken(ctx context.Context, ns, name string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		s, err := a.cs.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
		if err == nil && len(s.Data["token"]) > 0 {
			return string(s.Data["token"]), nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("token of secret %s/%s: %v (%w)", ns, name, err, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// writeKubeconfig writes a kubeconfig for the server of rc with token to
// path and returns path.
func writeKubeconfig(path string, rc *rest.Config, token string) (string, error) {
	ca := rc.CAData
	if len(ca) == 0 && rc.CAFile != "" {
		var err error
		if ca, err = os.ReadFile(rc.CAFile); err != nil {
			return "", err
		}
	}
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: cluster
  cluster:
    server: %q
    certificate-authority-data: %s
users:
- name: pod
  user:
    token: %q
contexts:
- name: pod
  context:
    cluster: cluster
    user: pod
current-context: pod
`, rc.Host, base64.StdEncoding.EncodeToString(ca), token)
	return path, os.WriteFile(path, []byte(cfg), 0o600)
}
