package anchor

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// certDir is where the operator's webhook server reads its certificate;
// the operator fixes it.
const certDir = "/tmp/k8s-webhook-server/serving-certs"

var tfjobs = schema.GroupVersionResource{Group: "kubeflow.org", Version: "v1", Resource: "tfjobs"}

// operator is a running training-operator.
type operator struct {
	cmd *exec.Cmd
	log string
}

// startOperator applies the TFJob CRD from dir and starts dir's
// training-operator for TFJobs against cp, returning once it is ready.
func startOperator(ctx context.Context, cp *controlplane.ControlPlane, kubectl harness.Kubectl, dir, scratch string) (*operator, error) {
	if r := kubectl.Run(cp.Kubeconfig(), nil, "apply", "--server-side", "-f", filepath.Join(dir, "kubeflow.org_tfjobs.yaml")); r.Err != nil {
		return nil, fmt.Errorf("apply the TFJob CRD: %v\n%s", r.Err, r.Stderr)
	}
	dyn, err := dynamic.NewForConfig(cp.RestConfig())
	if err != nil {
		return nil, err
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := dyn.Resource(tfjobs).List(ctx, metav1.ListOptions{Limit: 1})
		return err == nil, nil
	})
	if err != nil {
		return nil, fmt.Errorf("TFJobs not served: %w", err)
	}
	// Its webhook's certificate rotator needs the namespace and the
	// Secret it fills; the webhook server a certificate at start.
	cs := cp.Client()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kubeflow"}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "training-operator-webhook-cert", Namespace: "kubeflow"}}
	if _, err := cs.CoreV1().Secrets("kubeflow").Create(ctx, secret, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	if err := selfSignedCert(certDir); err != nil {
		return nil, err
	}
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	log := filepath.Join(scratch, "training-operator.log")
	out, err := os.Create(log)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	cmd := exec.Command(filepath.Join(dir, "training-operator"), "--enable-scheme=tfjob", "--metrics-bind-address=0",
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", ports[0]), fmt.Sprintf("--webhook-server-port=%d", ports[1]))
	cmd.Env = append(os.Environ(), "KUBECONFIG="+cp.Kubeconfig())
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	op := &operator{cmd: cmd, log: log}
	ready := fmt.Sprintf("http://127.0.0.1:%d/readyz", ports[0])
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		resp, err := http.Get(ready)
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		op.stop()
		b, _ := os.ReadFile(log)
		return nil, fmt.Errorf("training-operator not ready: %v\n%s", err, b[max(0, len(b)-4000):])
	}
	return op, nil
}

// stop ends the operator and returns the CPU time it used.
func (op *operator) stop() time.Duration {
	_ = op.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = op.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = op.cmd.Process.Kill()
		<-done
	}
	return op.cmd.ProcessState.UserTime() + op.cmd.ProcessState.SystemTime()
}

// selfSignedCert writes tls.crt and tls.key for localhost into dir.
func selfSignedCert(dir string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "training-operator"},
		DNSNames: []string{"localhost", "training-operator.kubeflow.svc"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "tls.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "tls.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
}

// freePorts returns n distinct free TCP ports on 127.0.0.1.
func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
