package controlplane

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki is the key material of one control plane, written as PEM files in dir.
type pki struct {
	ca            *x509.Certificate
	caKey         crypto.Signer
	caCert        []byte // PEM of the cluster CA
	caFile        string // cluster CA certificate
	servingCert   string // API server serving certificate, signed by the CA
	servingKey    string
	saKey         string // service-account signing key (private)
	saPub         string // its public half, for verifying tokens
	adminToken    string
	nodeToken     string // the kubelet's, as system:node:NodeName
	tokenAuthFile string
}

// newPKI generates a CA, an API server serving certificate for loopback and
// the in-cluster names, a service-account signing key and an admin token.
func newPKI(dir string, ips []net.IP) (*pki, error) {
	p := &pki{
		caFile:        filepath.Join(dir, "ca.crt"),
		servingCert:   filepath.Join(dir, "apiserver.crt"),
		servingKey:    filepath.Join(dir, "apiserver.key"),
		saKey:         filepath.Join(dir, "sa.key"),
		saPub:         filepath.Join(dir, "sa.pub"),
		tokenAuthFile: filepath.Join(dir, "tokens.csv"),
	}
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "tfgen-test-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, caKey.Public(), caKey)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	p.ca, p.caKey, p.caCert = ca, caKey, pemBlock("CERTIFICATE", caDER)

	srvDER, srvKey, err := p.serving("kube-apiserver", ips, "kubernetes", "kubernetes.default",
		"kubernetes.default.svc", "kubernetes.default.svc.cluster.local")
	if err != nil {
		return nil, err
	}

	// RSA: the signing algorithm every Kubernetes component and client accepts.
	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	p.adminToken = rand.Text()
	p.nodeToken = rand.Text()

	files := []struct {
		path string
		data func() ([]byte, error)
	}{
		{p.caFile, func() ([]byte, error) { return p.caCert, nil }},
		{p.servingCert, func() ([]byte, error) { return pemBlock("CERTIFICATE", srvDER), nil }},
		{p.servingKey, func() ([]byte, error) { return privatePEM(srvKey) }},
		{p.saKey, func() ([]byte, error) { return privatePEM(saKey) }},
		{p.saPub, func() ([]byte, error) { return publicPEM(saKey.Public()) }},
		{p.tokenAuthFile, func() ([]byte, error) {
			return fmt.Appendf(nil, "%s,%s,%s,\"system:masters\"\n%s,%s,%s,\"system:nodes\"\n",
				p.adminToken, adminUser, adminUser, p.nodeToken, nodeUser, nodeUser), nil
		}},
	}
	for _, f := range files {
		data, err := f.data()
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(f.path, data, 0o600); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// serving issues a serving certificate signed by the CA for loopback,
// localhost, ips and names, returning its DER and key.
func (p *pki) serving(cn string, ips []net.IP, names ...string) ([]byte, crypto.Signer, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 64))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    p.ca.NotBefore,
		NotAfter:     p.ca.NotAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  append([]net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}, ips...),
		DNSNames:     append([]string{"localhost"}, names...),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, key.Public(), p.caKey)
	return der, key, err
}

// servingFiles writes a serving certificate for loopback as dir/tls.crt
// and dir/tls.key, as controller-runtime's webhook servers read them.
func (p *pki) servingFiles(cn, dir string) error {
	der, key, err := p.serving(cn, nil)
	if err != nil {
		return err
	}
	keyPEM, err := privatePEM(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "tls.crt"), pemBlock("CERTIFICATE", der), 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "tls.key"), keyPEM, 0o600)
}

const (
	adminUser = "tfgen-test-admin"
	nodeUser  = "system:node:" + NodeName
)

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

func privatePEM(key crypto.Signer) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pemBlock("PRIVATE KEY", der), nil
}

func publicPEM(key crypto.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(key)
	if err != nil {
		return nil, err
	}
	return pemBlock("PUBLIC KEY", der), nil
}
