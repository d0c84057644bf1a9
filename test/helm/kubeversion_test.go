package helm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// target is what a pod template shows of the Kubernetes minor it was
// rendered for.
type target struct {
	// ImageVolume: tfgen-bin is an image volume (1.36 and later), not an
	// emptyDir the init container tfgen-install fills.
	ImageVolume bool
	// RestartRules: the training container has its own restartPolicy and
	// restartPolicyRules, and tfsupervisor run --complete (1.35 and later).
	RestartRules bool
	// KubeVersion is tfsupervisor run's --kube-version.
	KubeVersion string
}

// for134 and for137 are what the mnist job's pods get on Kubernetes 1.34
// and 1.37.
var (
	for134 = target{KubeVersion: "1.34"}
	for137 = target{ImageVolume: true, RestartRules: true, KubeVersion: "1.37"}
)

// targetOf reads the target of sts's pod template, failing t when its parts
// disagree (an image volume beside tfgen-install, restart rules without
// --complete).
func targetOf(t *testing.T, sts *appsv1.StatefulSet) target {
	t.Helper()
	ps := sts.Spec.Template.Spec
	var tg target
	for _, v := range ps.Volumes {
		if v.Name == "tfgen-bin" {
			tg.ImageVolume = v.Image != nil
			if (v.EmptyDir != nil) == tg.ImageVolume {
				t.Errorf("%s: volume tfgen-bin %+v: want an image volume or an emptyDir", sts.Name, v.VolumeSource)
			}
		}
	}
	install := slices.ContainsFunc(ps.InitContainers, func(c corev1.Container) bool { return c.Name == "tfgen-install" })
	if install == tg.ImageVolume {
		t.Errorf("%s: init container tfgen-install %v with an image volume %v", sts.Name, install, tg.ImageVolume)
	}
	i := slices.IndexFunc(ps.Containers, func(c corev1.Container) bool { return c.Name == "tensorflow" })
	if i < 0 {
		t.Fatalf("%s: no training container", sts.Name)
	}
	c := ps.Containers[i]
	tg.RestartRules = c.RestartPolicy != nil
	complete := slices.Contains(c.Command, "--complete")
	if i := slices.Index(c.Command, "--kube-version"); i >= 0 && i+1 < len(c.Command) {
		tg.KubeVersion = c.Command[i+1]
	}
	if (len(c.RestartPolicyRules) > 0) != tg.RestartRules || complete != tg.RestartRules {
		t.Errorf("%s: training container restartPolicy %v, restartPolicyRules %v, --complete %v: want all or none",
			sts.Name, c.RestartPolicy, c.RestartPolicyRules, complete)
	}
	return tg
}

// renderedTarget returns the target of the worker StatefulSet of a helm
// template output.
func renderedTarget(t *testing.T, out []byte, ns string) target {
	t.Helper()
	o, ok := parse(t, out)["StatefulSet "+ns+"/mnist-worker"]
	if !ok {
		t.Fatalf("no StatefulSet mnist-worker in:\n%s", out)
	}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	var sts appsv1.StatefulSet
	if err := json.Unmarshal(b, &sts); err != nil {
		t.Fatal(err)
	}
	return targetOf(t, &sts)
}

// mnistValues are tfgen values of examples/tfjob-mnist.yaml: they set no
// tfgen.kubeVersion.
func mnistValues(t *testing.T) []byte {
	t.Helper()
	values := tfgen.Must(t, nil, "values", "-f", "examples/tfjob-mnist.yaml")
	var v struct {
		TFGen map[string]any `json:"tfgen"`
	}
	if err := yaml.Unmarshal(values, &v); err != nil {
		t.Fatal(err)
	}
	if k, ok := v.TFGen["kubeVersion"]; ok {
		t.Fatalf("tfgen values without --kube-version set tfgen.kubeVersion %v", k)
	}
	return values
}

// TestChartFollowsCluster installs the mnist job's values, which set no
// tfgen.kubeVersion, with helm install into the 1.37 API server, and
// templates them with helm template --kube-version 1.34.0: each gets the
// objects of its own minor (the image volume, restart rules and --complete
// on 1.37; the copy and none of them for 1.34). An explicit
// tfgen.kubeVersion wins over the cluster's under helm upgrade and over
// --kube-version under helm template.
func TestChartFollowsCluster(t *testing.T) {
	cp := controlplane.Shared(t)
	cs := cp.Client()
	ns := harness.Namespace(t, cs, "helm-kube", nil)
	kube := []string{"--kubeconfig", cp.Kubeconfig(), "-n", ns}
	values := mnistValues(t)
	installed := func() target {
		t.Helper()
		sts, err := cs.AppsV1().StatefulSets(ns).Get(t.Context(), "mnist-worker", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return targetOf(t, sts)
	}

	helm(t).Must(t, values, append([]string{"install", "mnist", chartDir, "-f", "-"}, kube...)...)
	if got := installed(); got != for137 {
		t.Errorf("helm install into Kubernetes 1.37: %+v, want %+v", got, for137)
	}
	if got := renderedTarget(t, helm(t).Must(t, values, "template", "mnist", chartDir, "-n", ns, "-f", "-", "--kube-version", "1.34.0"), ns); got != for134 {
		t.Errorf("helm template --kube-version 1.34.0: %+v, want %+v", got, for134)
	}

	helm(t).Must(t, values, append([]string{"upgrade", "mnist", chartDir, "-f", "-", "--set-string", "tfgen.kubeVersion=1.34"}, kube...)...)
	if got := installed(); got != for134 {
		t.Errorf("helm upgrade into Kubernetes 1.37 with tfgen.kubeVersion 1.34: %+v, want %+v", got, for134)
	}
	out := helm(t).Must(t, values, "template", "mnist", chartDir, "-n", ns, "-f", "-", "--kube-version", "1.34.0", "--set-string", "tfgen.kubeVersion=1.37")
	if got := renderedTarget(t, out, ns); got != for137 {
		t.Errorf("helm template --kube-version 1.34.0 with tfgen.kubeVersion 1.37: %+v, want %+v", got, for137)
	}
	helm(t).Must(t, nil, append([]string{"uninstall", "mnist"}, kube...)...)
}

// TestChartKubeVersionRange checks the chart's kubeVersion: Helm refuses a
// cluster before 1.34, as helm install would the API server's version, and
// takes 1.34 and every later patch and minor release, managed clusters'
// suffixed versions included, which render for their own minor.
func TestChartKubeVersionRange(t *testing.T) {
	values := mnistValues(t)
	for _, tc := range []struct {
		version string
		want    target
		refused bool
	}{
		{version: "1.33.9", refused: true},
		{version: "v1.33.4-gke.1245000", refused: true},
		{version: "1.34.0", want: for134},
		{version: "v1.34.4-gke.1245000", want: for134},
		{version: "v1.34.2-eks-a5565ad", want: for134},
		{version: "1.37.1", want: for137},
		{version: "1.38.0", want: target{ImageVolume: true, RestartRules: true, KubeVersion: "1.38"}},
		{version: "v1.40.3-eks-a5565ad", want: target{ImageVolume: true, RestartRules: true, KubeVersion: "1.40"}},
	} {
		t.Run(tc.version, func(t *testing.T) {
			r := helm(t).Run(values, "template", "mnist", chartDir, "-n", "team-a", "-f", "-", "--kube-version", tc.version)
			if tc.refused {
				if want := "chart requires kubeVersion: >=1.34.0-0 which is incompatible with Kubernetes"; r.Err == nil || !strings.Contains(r.Stderr, want) {
					t.Errorf("helm template --kube-version %s: %v, want it refused with %q:\n%s", tc.version, r.Err, want, r.Stderr)
				}
				return
			}
			if r.Err != nil {
				t.Fatalf("helm template --kube-version %s: %v\n%s", tc.version, r.Err, r.Stderr)
			}
			if got := renderedTarget(t, []byte(r.Stdout), "team-a"); got != tc.want {
				t.Errorf("helm template --kube-version %s: %+v, want %+v", tc.version, got, tc.want)
			}
		})
	}
}

// TestTemplateWithoutKubeVersion checks what helm template renders with no
// --kube-version and values without tfgen.kubeVersion: the objects for
// Helm's built-in Kubernetes version (that of the client-go it was built
// with), which a chart printing .Capabilities.KubeVersion shows, exactly
// as tfgen render gives them for that minor.
func TestTemplateWithoutKubeVersion(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"Chart.yaml":          "apiVersion: v2\nname: caps\nversion: 0.1.0\n",
		"templates/caps.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: caps}\ndata: {version: {{ .Capabilities.KubeVersion.Version | quote }}}\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	caps := parse(t, helm(t).Must(t, nil, "template", "caps", dir))["ConfigMap /caps"]
	version, _ := caps["data"].(map[string]any)["version"].(string)
	major, rest, _ := strings.Cut(strings.TrimPrefix(version, "v"), ".")
	minor, _, _ := strings.Cut(rest, ".")
	if major == "" || minor == "" {
		t.Fatalf("helm's built-in Kubernetes version %q: want vMAJOR.MINOR.PATCH", version)
	}
	t.Logf("helm template without --kube-version: Kubernetes %s", version)

	values := mnistValues(t)
	got := parse(t, helm(t).Must(t, values, "template", "mnist", chartDir, "-n", "team-a", "-f", "-"))
	hooks(got)
	want := parse(t, tfgen.Must(t, nil, "render", "-f", "examples/tfjob-mnist.yaml", "-n", "team-a", "--kube-version", major+"."+minor))
	if d := diffObjects(want, got); d != "" {
		t.Errorf("helm template without --kube-version differs from tfgen render --kube-version %s.%s:\n%s", major, minor, d)
	}
}
