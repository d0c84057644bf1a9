package render

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/Masterminds/sprig/v3"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/tfgen/tfgen/pkg/check"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/manifest"
)

func TestFuncMapHasNoEnv(t *testing.T) {
	f := funcMap()
	for _, name := range []string{"env", "expandenv"} {
		if _, ok := f[name]; ok {
			t.Errorf("func map has %s: templates must not read the environment", name)
		}
	}
	for _, name := range []string{"include", "tpl", "toYaml", "toJson", "fromYaml", "fromJson", "required", "fail", "dict", "semverCompare"} {
		if _, ok := f[name]; !ok {
			t.Errorf("func map lacks %s", name)
		}
	}
}

// TestCachedRegexFindIsSprigs checks that regexFind, which compiles each
// pattern once, answers as sprig's, asked twice, and panics as it does on
// a pattern that does not compile.
func TestCachedRegexFindIsSprigs(t *testing.T) {
	cached, sprigs := funcMap()["regexFind"].(func(string, string) string), sprig.TxtFuncMap()["regexFind"].(func(string, string) string)
	for range 2 {
		for _, tc := range [][2]string{
			{`^v?[0-9]+\.[0-9]+`, "v1.37.0"}, {`^v?[0-9]+\.[0-9]+`, "v1.34.4-gke.1245000"}, {`^v?[0-9]+\.[0-9]+`, "v0.0.0-master+$Format:%H$"},
			{`^v?[0-9]+\.[0-9]+`, "latest"}, {`[a-z]+`, "123abc456"}, {``, "x"},
		} {
			if got, want := cached(tc[0], tc[1]), sprigs(tc[0], tc[1]); got != want {
				t.Errorf("regexFind %q %q = %q, sprig's %q", tc[0], tc[1], got, want)
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("regexFind of a bad pattern did not panic")
		}
	}()
	cached(`(`, "x")
}

func TestRenderObjects(t *testing.T) {
	objs, err := newRenderer(t).Render(mnist(), settings(), newest)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range objs {
		got = append(got, o.Kind()+"/"+o.Name())
	}
	want := []string{"ServiceAccount/mnist-tfjob", "ConfigMap/mnist", "ConfigMap/mnist-tfjob-logs", "Role/mnist-tfjob", "RoleBinding/mnist-tfjob",
		"Service/mnist-chief", "Service/mnist-ps", "Service/mnist-worker",
		"StatefulSet/mnist-chief", "StatefulSet/mnist-ps", "StatefulSet/mnist-worker", "StatefulSet/mnist-keeper"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("objects (-want +got):\n%s", diff)
	}
	if err := check.Objects(objs); err != nil {
		t.Error(err)
	}
}

// TestSizeDoesNotGrow renders 3 and 10,000 workers: in wrap mode only the
// replica counts differ (the worker StatefulSet's replicas and each
// command line's layout, the keeper's too: 4 bytes each).
func TestSizeDoesNotGrow(t *testing.T) {
	r := newRenderer(t)
	size := func(workers int32) int {
		j := mnist()
		j.TFReplicaSpecs[job.Worker].Replicas = ptr(workers)
		objs, err := r.Render(j, settings(), newest)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, o := range objs {
			b, _ := manifest.MarshalYAML(o)
			n += len(b)
		}
		return n
	}
	small, large := size(3), size(10000)
	if large-small > 48 {
		t.Errorf("3 workers: %d bytes, 10,000 workers: %d bytes", small, large)
	}
}

func TestSidecarNeedsKube135(t *testing.T) {
	s := settings()
	_, err := newRenderer(t).Render(sidecar(mnist()), s, Capabilities{KubeVersion: "1.34"})
	if err == nil || !strings.Contains(err.Error(), "replica type Chief") || !strings.Contains(err.Error(), "Kubernetes 1.35") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), "template:") {
		t.Errorf("a fail message should read alone, got %v", err)
	}
	if _, err := newRenderer(t).Render(sidecar(mnist()), s, Capabilities{KubeVersion: "1.35"}); err != nil {
		t.Fatal(err)
	}
}

func TestRestartRules(t *testing.T) {
	j := sidecar(mnist())
	j.TFReplicaSpecs[job.PS].RetryableExitCodes = []int32{130, 137}
	j.TFReplicaSpecs[job.PS].RestartPolicy = job.RestartExitCode
	objs, err := newRenderer(t).Render(j, settings(), newest)
	if err != nil {
		t.Fatal(err)
	}
	rules := func(name string) any {
		c := podSpec(statefulSet(t, objs, name))["containers"].([]any)[0].(map[string]any)
		return []any{c["restartPolicy"], c["restartPolicyRules"]}
	}
	restart := func(op string, values ...any) []any {
		return []any{map[string]any{"action": "Restart", "exitCodes": map[string]any{"operator": op, "values": values}}}
	}
	var retryable []any
	for c := int64(128); c <= 255; c++ {
		retryable = append(retryable, c)
	}
	for name, want := range map[string]any{
		"mnist-chief":  []any{"Never", restart("In", retryable...)},
		"mnist-ps":     []any{"Never", restart("In", int64(130), int64(137))},
		"mnist-worker": []any{"Never", restart("NotIn", int64(0))},
	} {
		if diff := cmp.Diff(want, rules(name)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

func TestTemplateErrorsNameFileAndLine(t *testing.T) {
	fsys := fstest.MapFS{
		"ok.yaml":  {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n")},
		"bad.yaml": {Data: []byte("apiVersion: v1\n\nkind: {{ .Values.nope }}\n")},
	}
	r, err := New(fsys)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.RenderValues("j", "", map[string]any{}, newest)
	if err == nil || !strings.Contains(err.Error(), "bad.yaml:3:") {
		t.Fatalf("err = %v, want it to name bad.yaml:3", err)
	}
	if _, err := New(fstest.MapFS{"x.yaml": {Data: []byte("{{ if }}")}}); err == nil || !strings.Contains(err.Error(), "x.yaml:1") {
		t.Errorf("parse error = %v", err)
	}
	r, err = New(fstest.MapFS{"loop.yaml": {Data: []byte(`{{ define "a" }}{{ include "a" . }}{{ end }}{{ include "a" . }}`)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.RenderValues("j", "", map[string]any{}, newest); err == nil || !strings.Contains(err.Error(), "includes itself") {
		t.Errorf("recursive include: %v", err)
	}
}

func TestUserTemplateSurvives(t *testing.T) {
	j := mnist()
	ps := &j.TFReplicaSpecs[job.Worker].Template
	ps.Labels = map[string]string{"team": "vision", "training.kubeflow.org/job-name": "spoofed"}
	ps.Annotations = map[string]string{"a": "b"}
	ps.Spec.NodeSelector = map[string]string{"pool": "gpu"}
	ps.Spec.ServiceAccountName = "trainer"
	ps.Spec.Containers = append(ps.Spec.Containers, corev1.Container{Name: "log-shipper", Image: "tensorflow/tensorflow:2.15.0"})
	objs, err := newRenderer(t).Render(j, settings(), newest)
	if err != nil {
		t.Fatal(err)
	}
	sts := statefulSet(t, objs, "mnist-worker")
	tpl := sts["spec"].(map[string]any)["template"].(map[string]any)
	meta := tpl["metadata"].(map[string]any)
	labels := meta["labels"].(map[string]any)
	if labels["team"] != "vision" || labels["training.kubeflow.org/job-name"] != "mnist" {
		t.Errorf("labels: %v", labels)
	}
	spec := podSpec(sts)
	if spec["serviceAccountName"] != "trainer" || spec["nodeSelector"].(map[string]any)["pool"] != "gpu" {
		t.Errorf("pod spec: %v", spec)
	}
	if got := spec["containers"].([]any)[1]; !cmp.Equal(got, map[string]any{"name": "log-shipper", "image": "tensorflow/tensorflow:2.15.0", "resources": map[string]any{}}) {
		t.Errorf("sidecar container changed: %v", got)
	}
	// The user's account stays the pod's, unbound; the supervisor gets the
	// job account's token from its token Secret.
	secret := false
	for _, o := range objs {
		switch o.Kind() {
		case "RoleBinding":
			subjects := o["subjects"].([]any)
			if len(subjects) != 1 || subjects[0].(map[string]any)["name"] != "mnist-tfjob" {
				t.Errorf("RoleBinding subjects: %v, want the job's account only", subjects)
			}
		case "Secret":
			ann := o["metadata"].(map[string]any)["annotations"].(map[string]any)
			secret = o["type"] == "kubernetes.io/service-account-token" && ann["kubernetes.io/service-account.name"] == "mnist-tfjob"
		}
	}
	if !secret {
		t.Error("no token Secret of the job's account")
	}
	if _, ok := spec["automountServiceAccountToken"]; ok {
		t.Errorf("automountServiceAccountToken set on a pod of the user's account: %v", spec["automountServiceAccountToken"])
	}
	for _, v := range spec["volumes"].([]any) {
		if v := v.(map[string]any); v["name"] == "tfgen-token" && v["secret"].(map[string]any)["secretName"] != "mnist-tfjob-token" {
			t.Errorf("token volume: %v", v)
		}
	}
}

// TestTokenOnlyInSupervisor: no container but tfsupervisor's own mounts
// the job's token, and the pods of the job's account do not automount it.
func TestTokenOnlyInSupervisor(t *testing.T) {
	objs, err := newRenderer(t).Render(mnist(), settings(), newest)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"mnist-chief", "mnist-ps", "mnist-worker"} {
		spec := podSpec(statefulSet(t, objs, name))
		if spec["automountServiceAccountToken"] != false || spec["serviceAccountName"] != "mnist-tfjob" {
			t.Errorf("%s: automountServiceAccountToken %v, serviceAccountName %v", name, spec["automountServiceAccountToken"], spec["serviceAccountName"])
		}
		var holders []string
		for _, key := range []string{"initContainers", "containers"} {
			for _, c := range spec[key].([]any) {
				c := c.(map[string]any)
				mounts, _ := c["volumeMounts"].([]any)
				for _, m := range mounts {
					if m.(map[string]any)["name"] == "tfgen-token" {
						holders = append(holders, c["name"].(string))
					}
				}
			}
		}
		if !cmp.Equal(holders, []string{"tfsupervisor"}) {
			t.Errorf("%s: containers mounting the job's token: %v, want tfsupervisor's only", name, holders)
		}
	}
}
