package controlplane

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeKubeconfig writes dir/kubeconfig-NAME for a bearer token, with
// namespace (may be empty) as its context's namespace, and returns its path.
func (cp *ControlPlane) writeKubeconfig(name, token, namespace string) (string, error) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["tfgen-test"] = &clientcmdapi.Cluster{
		Server:                   cp.config.Host,
		CertificateAuthorityData: cp.pki.caCert,
	}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: "tfgen-test", AuthInfo: name, Namespace: namespace}
	cfg.CurrentContext = name
	path := filepath.Join(cp.dir, "kubeconfig-"+name)
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return "", err
	}
	return path, nil
}

// ServiceAccountToken mints a token for the ServiceAccount namespace/name
// through the TokenRequest API, valid for an hour.
func (cp *ControlPlane) ServiceAccountToken(ctx context.Context, namespace, name string) (string, error) {
	tr, err := cp.client.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
			ExpirationSeconds: new(int64(time.Hour / time.Second)),
		}}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("controlplane: token for serviceaccount %s/%s: %w", namespace, name, err)
	}
	return tr.Status.Token, nil
}

// ServiceAccountConfig is a client configuration that acts as the
// ServiceAccount namespace/name, so a test can do what a job's pods may do.
func (cp *ControlPlane) ServiceAccountConfig(ctx context.Context, namespace, name string) (*rest.Config, error) {
	token, err := cp.ServiceAccountToken(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	cfg := rest.AnonymousClientConfig(cp.config)
	cfg.BearerToken = token
	return cfg, nil
}

// ServiceAccountKubeconfig writes a kubeconfig that acts as the
// ServiceAccount namespace/name (for kubectl, e.g. `kubectl auth can-i`) and
// returns its path. Its context's namespace is the ServiceAccount's.
func (cp *ControlPlane) ServiceAccountKubeconfig(ctx context.Context, namespace, name string) (string, error) {
	token, err := cp.ServiceAccountToken(ctx, namespace, name)
	if err != nil {
		return "", err
	}
	return cp.writeKubeconfig("sa-"+namespace+"-"+name, token, namespace)
}
