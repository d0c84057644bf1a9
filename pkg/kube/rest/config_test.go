package rest

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func write(t *testing.T, dir, name, text string) string {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadKubeconfig(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "ca.crt", "CA PEM")
	first := write(t, dir, "first", `
current-context: dev
contexts:
- name: dev
  context: {cluster: loop, user: admin}
users:
- name: admin
  user: {token: s3cret}
`)
	second := write(t, dir, "second", `
current-context: other
clusters:
- name: loop
  cluster: {server: "https://127.0.0.1:6443", certificate-authority: ca.crt}
- name: loop
  cluster: {server: "https://shadowed"}
users:
- name: cert
  user: {client-certificate-data: `+base64.StdEncoding.EncodeToString([]byte("CERT"))+`, client-key-data: `+base64.StdEncoding.EncodeToString([]byte("KEY"))+`}
- name: plugin
  user: {exec: {command: aws}}
contexts:
- name: cert
  context: {cluster: loop, user: cert}
- name: plugin
  context: {cluster: loop, user: plugin}
`)
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBECONFIG", first+string(filepath.ListSeparator)+filepath.Join(dir, "missing")+string(filepath.ListSeparator)+second)
	cfg, err := LoadConfig()
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{Host: "https://127.0.0.1:6443", CAData: []byte("CA PEM"), Token: "s3cret"}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("Config (-want +got):\n%s", diff)
	}
	cfg, err = loadKubeconfig([]string{write(t, dir, "cur", "current-context: cert\n"), second})
	if err != nil || string(cfg.CertData) != "CERT" || string(cfg.KeyData) != "KEY" {
		t.Errorf("client certificate: %+v, %v", cfg, err)
	}
	for ctx, want := range map[string]string{"plugin": "not supported", "none": "not found"} {
		_, err := loadKubeconfig([]string{write(t, dir, "cur", "current-context: "+ctx+"\n"), second})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("context %s: %v, want %q", ctx, err, want)
		}
	}
	t.Setenv("KUBECONFIG", "")
	if cfg, err := LoadConfig(); cfg != nil || err != nil {
		t.Errorf("standalone: %+v, %v", cfg, err)
	}
}

func TestTokenFileRotates(t *testing.T) {
	p := write(t, t.TempDir(), "token", "one\n")
	tf := &tokenFile{path: p}
	if tok, _ := tf.get(); tok != "one" {
		t.Fatalf("token %q", tok)
	}
	write(t, filepath.Dir(p), "token", "two")
	tf.read = tf.read.Add(-2 * 60 * 1e9)
	if tok, _ := tf.get(); tok != "two" {
		t.Errorf("after a minute: token %q, want the rotated one", tok)
	}
}
