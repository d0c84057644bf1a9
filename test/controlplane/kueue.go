package controlplane

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/yaml"
	sigyaml "sigs.k8s.io/yaml"
)

// Kueue is how Options.Kueue installs Kueue (make tools builds its
// controller manager into BIN/kueue and copies its release's manifests
// into BIN/kueue.d): as its release manifests do, every CRD with its
// conversion webhook, the mutating and validating webhooks with the
// release's namespace selectors, and the shipped configuration with its
// default integrations. What differs is where it runs: a process on
// loopback, its webhooks served there with a certificate of the control
// plane's CA, no leader election and no in-cluster certificate management.
const (
	kueueBinary   = "kueue"
	kueueManifest = "kueue.d"
	// KueueNamespace is Kueue's own namespace, as its release makes it.
	KueueNamespace = "kueue-system"
	// kueuePrefix is the release's name prefix (kustomize namePrefix).
	kueuePrefix = "kueue-"
	// kueueMetricsCerts is where Kueue's metrics server reads its
	// certificate when it manages none itself (cmd/kueue).
	kueueMetricsCerts = "/etc/kueue/metrics/certs"
)

// startKueue installs Kueue's CRDs, starts it and, once it is ready,
// registers its webhooks.
func (cp *ControlPlane) startKueue(ctx context.Context, bin string) error {
	dir := filepath.Join(bin, kueueManifest)
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	health, metrics, hook := ports[0], ports[1], ports[2]
	hookURL := "https://127.0.0.1:" + strconv.Itoa(hook)
	if err := cp.kueueCRDs(ctx, dir, hookURL); err != nil {
		return err
	}
	if _, err := cp.client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: KueueNamespace}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("kueue: namespace %s: %w", KueueNamespace, err)
	}
	certDir := filepath.Join(cp.dir, "kueue-certs")
	if err := cp.pki.servingFiles("kueue-webhook", certDir); err != nil {
		return err
	}
	// Without in-cluster certificate management, its metrics server
	// reads its certificate from a fixed path.
	if err := cp.pki.servingFiles("kueue-metrics", kueueMetricsCerts); err != nil {
		return err
	}
	config, err := kueueConfig(dir, cp.dir, certDir, health, metrics, hook)
	if err != nil {
		return err
	}
	// Its visibility API (pending workloads, an aggregated API server)
	// is off: it reads certificates from a fixed root path, and no test
	// asks it.
	p, err := cp.start(bin, kueueBinary, "--config="+config, "--kubeconfig="+cp.kubeconfig,
		"--feature-gates=VisibilityOnDemand=false", "--zap-log-level=2")
	if err != nil {
		return err
	}
	if err := p.waitHealthy(ctx, http.DefaultClient, fmt.Sprintf("http://127.0.0.1:%d/readyz", health), nil); err != nil {
		return err
	}
	return cp.kueueWebhooks(ctx, dir, hookURL)
}

// kueueCRDs creates every CRD of the release, those its kustomization
// patches with the conversion webhook at hookURL, and waits until each
// is established.
func (cp *ControlPlane) kueueCRDs(ctx context.Context, dir, hookURL string) error {
	var kust struct {
		Patches []struct {
			Path string `json:"path"`
		} `json:"patches"`
	}
	if err := readYAML(filepath.Join(dir, "crd", "kustomization.yaml"), &kust); err != nil {
		return err
	}
	converted := map[string]bool{}
	for _, p := range kust.Patches {
		var patch struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		}
		if err := readYAML(filepath.Join(dir, "crd", p.Path), &patch); err != nil {
			return err
		}
		converted[patch.Metadata.Name] = true
	}
	files, err := filepath.Glob(filepath.Join(dir, "crd", "bases", "*.yaml"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("kueue: no CRDs in %s: run `make tools`", filepath.Join(dir, "crd", "bases"))
	}
	rc := cp.client.Discovery().RESTClient()
	var names []string
	for _, f := range files {
		var crd struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
			Spec     map[string]any    `json:"spec"`
		}
		if err := readYAML(f, &crd); err != nil {
			return err
		}
		name := crd.Metadata.Name
		if converted[name] {
			spec := crd.Spec
			spec["conversion"] = map[string]any{"strategy": "Webhook", "webhook": map[string]any{
				"conversionReviewVersions": []string{"v1"},
				"clientConfig":             map[string]any{"url": hookURL + "/convert", "caBundle": cp.pki.caCert},
			}}
		}
		body, err := json.Marshal(map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
			"metadata": map[string]any{"name": name}, "spec": crd.Spec})
		if err != nil {
			return err
		}
		// Applied, so that a start tried again after a port clash sets
		// the conversion webhook's new port.
		err = rc.Patch(types.ApplyPatchType).AbsPath("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", name).
			Param("fieldManager", "tfgen-test").Param("force", "true").Body(body).Do(ctx).Error()
		if err != nil {
			return fmt.Errorf("kueue: apply CRD %s: %w", name, err)
		}
		names = append(names, name)
	}
	for _, name := range names {
		err := poll(ctx, func(ctx context.Context) error {
			b, err := rc.Get().AbsPath("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", name).DoRaw(ctx)
			if err != nil {
				return err
			}
			var crd struct {
				Status struct {
					Conditions []metav1.Condition `json:"conditions"`
				} `json:"status"`
			}
			if err := json.Unmarshal(b, &crd); err != nil {
				return err
			}
			for _, c := range crd.Status.Conditions {
				if c.Type == "Established" && c.Status == metav1.ConditionTrue {
					return nil
				}
			}
			return fmt.Errorf("CRD %s not established", name)
		})
		if err != nil {
			return fmt.Errorf("kueue: %w", err)
		}
	}
	return nil
}

// kueueConfig writes Kueue's shipped configuration with where it runs
// changed (ports on loopback, the certificate directory, no leader
// election, no in-cluster certificate management) into dir, and returns
// its path.
func kueueConfig(manifests, dir, certDir string, health, metrics, hook int) (string, error) {
	var cfg map[string]any
	if err := readYAML(filepath.Join(manifests, "manager", "controller_manager_config.yaml"), &cfg); err != nil {
		return "", err
	}
	cfg["health"] = map[string]any{"healthProbeBindAddress": fmt.Sprintf("127.0.0.1:%d", health)}
	cfg["metrics"] = map[string]any{"bindAddress": fmt.Sprintf("127.0.0.1:%d", metrics)}
	cfg["webhook"] = map[string]any{"port": hook, "host": "127.0.0.1", "certDir": certDir}
	cfg["leaderElection"] = map[string]any{"leaderElect": false}
	cfg["internalCertManagement"] = map[string]any{"enable": false}
	b, err := sigyaml.Marshal(cfg)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "kueue-config.yaml")
	return path, os.WriteFile(path, b, 0o600)
}

// kueueWebhooks registers the release's webhook configurations, named
// and scoped as its kustomization makes them, calling Kueue at hookURL.
func (cp *ControlPlane) kueueWebhooks(ctx context.Context, dir, hookURL string) error {
	selectors, err := kueueNamespaceSelectors(filepath.Join(dir, "webhook", "kustomization.yaml"))
	if err != nil {
		return err
	}
	f, err := os.Open(filepath.Join(dir, "webhook", "manifests.yaml"))
	if err != nil {
		return fmt.Errorf("kueue: %w: run `make tools`", err)
	}
	defer f.Close()
	dec := yaml.NewYAMLOrJSONDecoder(f, 4096)
	config := func(path string) admissionv1.WebhookClientConfig {
		u := hookURL + path
		return admissionv1.WebhookClientConfig{URL: &u, CABundle: cp.pki.caCert}
	}
	reg := cp.client.AdmissionregistrationV1()
	for {
		var doc struct {
			metav1.TypeMeta `json:",inline"`
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("kueue: webhooks: %w", err)
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			return err
		}
		switch doc.Kind {
		case "MutatingWebhookConfiguration":
			var m admissionv1.MutatingWebhookConfiguration
			if err := json.Unmarshal(raw, &m); err != nil {
				return err
			}
			m.Name = kueuePrefix + m.Name
			for i := range m.Webhooks {
				w := &m.Webhooks[i]
				w.ClientConfig = config(*w.ClientConfig.Service.Path)
				if s, ok := selectors[w.Name]; ok {
					w.NamespaceSelector = s
				}
			}
			if _, err := reg.MutatingWebhookConfigurations().Create(ctx, &m, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("kueue: %s: %w", m.Name, err)
			}
		case "ValidatingWebhookConfiguration":
			var v admissionv1.ValidatingWebhookConfiguration
			if err := json.Unmarshal(raw, &v); err != nil {
				return err
			}
			v.Name = kueuePrefix + v.Name
			for i := range v.Webhooks {
				w := &v.Webhooks[i]
				w.ClientConfig = config(*w.ClientConfig.Service.Path)
				if s, ok := selectors[w.Name]; ok {
					w.NamespaceSelector = s
				}
			}
			if _, err := reg.ValidatingWebhookConfigurations().Create(ctx, &v, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("kueue: %s: %w", v.Name, err)
			}
		}
	}
}

// kueueNamespaceSelectors reads the namespace selectors the release's
// webhook kustomization patches in, by webhook name; any other patched
// field is an error, so that nothing it changes goes unnoticed.
func kueueNamespaceSelectors(path string) (map[string]*metav1.LabelSelector, error) {
	var kust struct {
		Patches []struct {
			Patch string `json:"patch"`
		} `json:"patches"`
	}
	if err := readYAML(path, &kust); err != nil {
		return nil, err
	}
	out := map[string]*metav1.LabelSelector{}
	for _, p := range kust.Patches {
		var patch struct {
			Webhooks []map[string]json.RawMessage `json:"webhooks"`
		}
		if err := sigyaml.Unmarshal([]byte(p.Patch), &patch); err != nil {
			return nil, fmt.Errorf("kueue: %s: %w", path, err)
		}
		for _, w := range patch.Webhooks {
			var name string
			var sel metav1.LabelSelector
			for k, v := range w {
				var err error
				switch k {
				case "name":
					err = json.Unmarshal(v, &name)
				case "namespaceSelector":
					err = json.Unmarshal(v, &sel)
				default:
					err = fmt.Errorf("patches webhooks' %s, which the test control plane does not apply", k)
				}
				if err != nil {
					return nil, fmt.Errorf("kueue: %s: %w", path, err)
				}
			}
			out[name] = &sel
		}
	}
	return out, nil
}

// readYAML decodes the YAML file path into v.
func readYAML(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("kueue: %w: run `make tools`", err)
	}
	if err := sigyaml.Unmarshal(b, v); err != nil {
		return fmt.Errorf("kueue: %s: %w", path, err)
	}
	return nil
}

// poll calls check every 100ms until it returns nil or ctx ends.
func poll(ctx context.Context, check func(context.Context) error) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		err := check(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", ctx.Err(), err)
		case <-tick.C:
		}
	}
}
