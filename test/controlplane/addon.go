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

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/yaml"
	sigyaml "sigs.k8s.io/yaml"
)

// addon is a controller-runtime controller (Kueue, JobSet) installed as
// its release's kustomize manifests install it, but run as a process on
// loopback: every CRD (with its conversion webhook where the release's
// CRD kustomization patches one in), its namespace, its shipped
// configuration with where it runs changed (ports on loopback, its
// webhooks' certificate from the control plane's CA, no leader election,
// no in-cluster certificate management), then, once it is ready, its
// webhook configurations as the release names and scopes them, calling
// it on loopback.
//
// Its manifests are its repository's config/components crd/ and webhook/
// directories and its manager's configuration file, which `make tools`
// (or hack/anchor) copies into BIN/NAME.d.
type addon struct {
	// name is the binary's, in BIN, and the process's.
	name string
	// namespace is its own, made before it starts.
	namespace string
	// namePrefix is its release's kustomize namePrefix ("kueue-").
	namePrefix string
	// config is its shipped configuration file, in NAME.d.
	config string
	// setConfig sets where it runs in the configuration cfg.
	setConfig func(cfg map[string]any, p addonPorts)
	// args are its flags besides --config and --kubeconfig.
	args []string
	// before, if set, runs before it starts (certificates it reads from
	// fixed paths).
	before func(cp *ControlPlane) error
}

// addonPorts are where an addon serves, and its webhook certificate.
type addonPorts struct {
	health, metrics, webhook int
	certDir                  string
}

// startAddon installs and starts a, and returns once its webhooks are
// registered.
func (cp *ControlPlane) startAddon(ctx context.Context, bin string, a addon) error {
	dir := filepath.Join(bin, a.name+".d")
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	p := addonPorts{health: ports[0], metrics: ports[1], webhook: ports[2], certDir: filepath.Join(cp.dir, a.name+"-certs")}
	hookURL := "https://127.0.0.1:" + strconv.Itoa(p.webhook)
	if err := cp.addonCRDs(ctx, a, dir, hookURL); err != nil {
		return err
	}
	if _, err := cp.client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: a.namespace}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("%s: namespace %s: %w", a.name, a.namespace, err)
	}
	if err := cp.pki.servingFiles(a.name+"-webhook", p.certDir); err != nil {
		return err
	}
	if a.before != nil {
		if err := a.before(cp); err != nil {
			return err
		}
	}
	var cfg map[string]any
	if err := readYAML(filepath.Join(dir, a.config), &cfg); err != nil {
		return fmt.Errorf("%s: %w", a.name, err)
	}
	a.setConfig(cfg, p)
	b, err := sigyaml.Marshal(cfg)
	if err != nil {
		return err
	}
	config := filepath.Join(cp.dir, a.name+"-config.yaml")
	if err := os.WriteFile(config, b, 0o600); err != nil {
		return err
	}
	proc, err := cp.start(bin, a.name, append([]string{"--config=" + config, "--kubeconfig=" + cp.kubeconfig}, a.args...)...)
	if err != nil {
		return err
	}
	if err := proc.waitHealthy(ctx, http.DefaultClient, fmt.Sprintf("http://127.0.0.1:%d/readyz", p.health), nil); err != nil {
		return err
	}
	return cp.addonWebhooks(ctx, a, dir, hookURL)
}

// addonCRDs applies every CRD in crd/bases, those the CRD kustomization
// patches with a conversion webhook calling hookURL, and waits until each
// is established.
func (cp *ControlPlane) addonCRDs(ctx context.Context, a addon, dir, hookURL string) error {
	var kust struct {
		Patches []struct {
			Path string `json:"path"`
		} `json:"patches"`
	}
	if err := readYAML(filepath.Join(dir, "crd", "kustomization.yaml"), &kust); err != nil {
		return fmt.Errorf("%s: %w", a.name, err)
	}
	converted := map[string]bool{}
	for _, p := range kust.Patches {
		var patch struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
			Spec     struct {
				Conversion *struct {
					Strategy string `json:"strategy"`
				} `json:"conversion"`
			} `json:"spec"`
		}
		if err := readYAML(filepath.Join(dir, "crd", p.Path), &patch); err != nil {
			return fmt.Errorf("%s: %w", a.name, err)
		}
		if c := patch.Spec.Conversion; c != nil && c.Strategy == "Webhook" {
			converted[patch.Metadata.Name] = true
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "crd", "bases", "*.yaml"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("%s: no CRDs in %s: run `make tools`", a.name, filepath.Join(dir, "crd", "bases"))
	}
	rc := cp.client.Discovery().RESTClient()
	var names []string
	for _, f := range files {
		var crd struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
			Spec     map[string]any    `json:"spec"`
		}
		if err := readYAML(f, &crd); err != nil {
			return fmt.Errorf("%s: %w", a.name, err)
		}
		name := crd.Metadata.Name
		if converted[name] {
			crd.Spec["conversion"] = map[string]any{"strategy": "Webhook", "webhook": map[string]any{
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
			return fmt.Errorf("%s: apply CRD %s: %w", a.name, name, err)
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
			return fmt.Errorf("%s: %w", a.name, err)
		}
	}
	return nil
}

// addonWebhooks registers the release's webhook configurations, named and
// patched as its webhook kustomization makes them, calling it at hookURL.
func (cp *ControlPlane) addonWebhooks(ctx context.Context, a addon, dir, hookURL string) error {
	patch, err := webhookPatches(filepath.Join(dir, "webhook"))
	if err != nil {
		return fmt.Errorf("%s: %w", a.name, err)
	}
	f, err := os.Open(filepath.Join(dir, "webhook", "manifests.yaml"))
	if err != nil {
		return fmt.Errorf("%s: %w: run `make tools`", a.name, err)
	}
	defer f.Close()
	dec := yaml.NewYAMLOrJSONDecoder(f, 4096)
	config := func(cc *admissionv1.WebhookClientConfig) {
		u := hookURL + *cc.Service.Path
		*cc = admissionv1.WebhookClientConfig{URL: &u, CABundle: cp.pki.caCert}
	}
	reg := cp.client.AdmissionregistrationV1()
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("%s: webhooks: %w", a.name, err)
		}
		var doc struct {
			metav1.TypeMeta `json:",inline"`
			Metadata        metav1.ObjectMeta `json:"metadata"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			return err
		}
		if raw, err = patch(doc.Kind, doc.Metadata.Name, raw); err != nil {
			return fmt.Errorf("%s: %s %s: %w", a.name, doc.Kind, doc.Metadata.Name, err)
		}
		switch doc.Kind {
		case "MutatingWebhookConfiguration":
			var m admissionv1.MutatingWebhookConfiguration
			if err := json.Unmarshal(raw, &m); err != nil {
				return err
			}
			m.Name = a.namePrefix + m.Name
			for i := range m.Webhooks {
				config(&m.Webhooks[i].ClientConfig)
			}
			if _, err := reg.MutatingWebhookConfigurations().Create(ctx, &m, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("%s: %s: %w", a.name, m.Name, err)
			}
		case "ValidatingWebhookConfiguration":
			var v admissionv1.ValidatingWebhookConfiguration
			if err := json.Unmarshal(raw, &v); err != nil {
				return err
			}
			v.Name = a.namePrefix + v.Name
			for i := range v.Webhooks {
				config(&v.Webhooks[i].ClientConfig)
			}
			if _, err := reg.ValidatingWebhookConfigurations().Create(ctx, &v, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("%s: %s: %w", a.name, v.Name, err)
			}
		}
	}
}

// webhookPatches reads the patches of the webhook kustomization in dir
// and returns a function that applies them to a webhook configuration
// (as JSON): the JSON 6902 patches of files aimed at a kind and name
// (JobSet's), and the inline strategic merge patches that set webhooks'
// namespace selectors by webhook name (Kueue's). A patch of any other
// shape is an error, so that nothing it changes goes unnoticed.
func webhookPatches(dir string) (func(kind, name string, doc []byte) ([]byte, error), error) {
	var kust struct {
		Patches []struct {
			Patch  string `json:"patch"`
			Path   string `json:"path"`
			Target *struct {
				Kind, Name string
			} `json:"target"`
		} `json:"patches"`
	}
	if err := readYAML(filepath.Join(dir, "kustomization.yaml"), &kust); err != nil {
		return nil, err
	}
	type ops struct {
		kind, name string
		patch      jsonpatch.Patch
	}
	var byTarget []ops
	selectors := map[string]*metav1.LabelSelector{}
	for _, p := range kust.Patches {
		switch {
		case p.Path != "" && p.Target != nil:
			b, err := os.ReadFile(filepath.Join(dir, p.Path))
			if err != nil {
				return nil, err
			}
			j, err := sigyaml.YAMLToJSON(b)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p.Path, err)
			}
			patch, err := jsonpatch.DecodePatch(j)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p.Path, err)
			}
			byTarget = append(byTarget, ops{p.Target.Kind, p.Target.Name, patch})
		case p.Patch != "":
			var patch struct {
				Webhooks []map[string]json.RawMessage `json:"webhooks"`
			}
			if err := sigyaml.Unmarshal([]byte(p.Patch), &patch); err != nil {
				return nil, err
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
						err = fmt.Errorf("a patch of webhooks' %s, which the test control plane does not apply", k)
					}
					if err != nil {
						return nil, err
					}
				}
				selectors[name] = &sel
			}
		default:
			return nil, errors.New("a patch the test control plane does not apply")
		}
	}
	return func(kind, name string, doc []byte) ([]byte, error) {
		var err error
		for _, o := range byTarget {
			if o.kind == kind && o.name == name {
				if doc, err = o.patch.Apply(doc); err != nil {
					return nil, err
				}
			}
		}
		if len(selectors) == 0 {
			return doc, nil
		}
		var obj map[string]any
		if err := json.Unmarshal(doc, &obj); err != nil {
			return nil, err
		}
		hooks, _ := obj["webhooks"].([]any)
		for _, h := range hooks {
			if w, ok := h.(map[string]any); ok {
				if sel, ok := selectors[fmt.Sprint(w["name"])]; ok {
					w["namespaceSelector"] = sel
				}
			}
		}
		return json.Marshal(obj)
	}, nil
}

// readYAML decodes the YAML file path into v.
func readYAML(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%w: run `make tools`", err)
	}
	if err := sigyaml.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
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
