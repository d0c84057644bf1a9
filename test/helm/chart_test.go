package helm

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/version"
	"github.com/tfgen/tfgen/templates"
)

// chartOnly are the chart's own files under templates/: tfgen never
// renders them.
var chartOnly = map[string]bool{"NOTES.txt": true, "tests": true}

// TestChartTemplatesAreGenerated fails when charts/tfjob/templates is not a
// byte-for-byte copy of what templates/embed.go embeds (run make chart).
func TestChartTemplatesAreGenerated(t *testing.T) {
	embedded, err := fs.Glob(templates.FS, "*")
	if err != nil || len(embedded) == 0 {
		t.Fatalf("embedded templates: %v %v", embedded, err)
	}
	want := map[string]bool{}
	for _, name := range embedded {
		want[name] = true
		src, err := fs.ReadFile(templates.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(chartDir, "templates", name))
		if err != nil {
			t.Errorf("%v: run make chart", err)
			continue
		}
		if !bytes.Equal(src, got) {
			t.Errorf("charts/tfjob/templates/%s differs from templates/%s: run make chart\n%s", name, name, cmp.Diff(string(src), string(got)))
		}
	}
	entries, err := os.ReadDir(filepath.Join(chartDir, "templates"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !want[e.Name()] && !chartOnly[e.Name()] {
			t.Errorf("charts/tfjob/templates/%s is neither a copy of templates/ nor the chart's own (%v): run make chart", e.Name(), keys(chartOnly))
		}
	}
	for name := range chartOnly {
		if _, err := fs.Stat(templates.FS, name); err == nil {
			t.Errorf("templates/%s is embedded: tfgen would render a chart-only file", name)
		}
	}
}

// TestChartVersions checks that the default supervisor image is the
// chart's appVersion and the post-renderer plugin's version the chart's,
// and that values.yaml sets no Kubernetes version: the chart follows the
// cluster's.
func TestChartVersions(t *testing.T) {
	var chart struct {
		APIVersion string `json:"apiVersion"`
		Name       string `json:"name"`
		Version    string `json:"version"`
		AppVersion string `json:"appVersion"`
	}
	readYAML(t, filepath.Join(chartDir, "Chart.yaml"), &chart)
	var values struct {
		TFGen job.Settings `json:"tfgen"`
	}
	readYAML(t, filepath.Join(chartDir, "values.yaml"), &values)
	if chart.APIVersion != "v2" || chart.Name != "tfjob" || chart.Version == "" {
		t.Errorf("Chart.yaml: %+v", chart)
	}
	if want := version.Image + ":" + chart.AppVersion; values.TFGen.SupervisorImage != want {
		t.Errorf("values.yaml tfgen.supervisorImage = %q, want %q (the chart's appVersion)", values.TFGen.SupervisorImage, want)
	}
	var plugin struct{ Name, Version string }
	readYAML(t, filepath.Join(root, "plugins", "tfgen", "plugin.yaml"), &plugin)
	if plugin.Name != "tfgen" || plugin.Version != chart.Version {
		t.Errorf("plugins/tfgen/plugin.yaml: name %q version %q, want tfgen %s (the chart's version)", plugin.Name, plugin.Version, chart.Version)
	}
	if values.TFGen.KubeVersion != "" {
		t.Errorf("values.yaml tfgen.kubeVersion = %q, want it unset: the chart follows the cluster's .Capabilities.KubeVersion", values.TFGen.KubeVersion)
	}
}

// TestSchemaKnowsEveryField checks that values.schema.json names every
// field of the canonical job and the settings: a field tfgen values prints
// and the schema refuses would break the chart for every such job.
func TestSchemaKnowsEveryField(t *testing.T) {
	var schema map[string]any
	b, err := os.ReadFile(filepath.Join(chartDir, "values.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatalf("values.schema.json: %v", err)
	}
	for _, tc := range []struct {
		typ  any
		path string // JSON pointer of the schema that must list the fields
	}{
		{job.Job{}, ""},
		{job.Settings{}, "/definitions/settings"},
		{job.ReplicaSpec{}, "/definitions/tfReplicaSpec"},
		{job.ReplicaSpec{}, "/definitions/mxReplicaSpec"},
		{job.RunPolicy{}, "/definitions/runPolicy"},
		{job.SchedulingPolicy{}, "/definitions/runPolicy/properties/schedulingPolicy"},
		{job.TensorBoard{}, "/properties/tensorboard"},
		{job.SchedulerSpec{}, "/properties/scheduler"},
		{job.ReplicaRef{}, "/properties/successReplica"},
	} {
		s := pointer(t, schema, tc.path)
		props, _ := s["properties"].(map[string]any)
		for _, name := range jsonFields(reflect.TypeOf(tc.typ)) {
			if _, ok := props[name]; !ok {
				t.Errorf("values.schema.json#%s lacks %s (a field of %T)", tc.path, name, tc.typ)
			}
		}
	}
}

func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "-" && name != "" {
			out = append(out, name)
		}
	}
	return out
}

func pointer(t *testing.T, doc map[string]any, p string) map[string]any {
	t.Helper()
	cur := doc
	for _, part := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		if part == "" {
			continue
		}
		next, ok := cur[part].(map[string]any)
		if !ok {
			t.Fatalf("values.schema.json has no %s", p)
		}
		cur = next
	}
	return cur
}

func readYAML(t *testing.T, p string, v any) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path.Base(p), err)
	}
}

// TestLint runs helm lint --strict on the chart with its defaults and with
// a job's values.
func TestLint(t *testing.T) {
	values := tfgen.Must(t, nil, "values", "-f", "examples/tfjob-mnist.yaml")
	for _, tc := range []struct {
		name  string
		stdin []byte
		args  []string
	}{
		{"defaults", nil, nil},
		{"a job", values, []string{"-f", "-"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := helm(t).Must(t, tc.stdin, append([]string{"lint", "--strict", chartDir}, tc.args...)...)
			if !strings.Contains(string(out), "1 chart(s) linted, 0 chart(s) failed") || strings.Contains(string(out), "[WARNING]") {
				t.Errorf("helm lint --strict:\n%s", out)
			}
		})
	}
}

// TestDefaultValues renders the chart's defaults, a job with no replica
// specs: no replicas, and no Role rule that an empty resourceNames would
// widen to every object of its kind.
func TestDefaultValues(t *testing.T) {
	objs := parse(t, helm(t).Must(t, nil, "template", "empty", chartDir, "-n", "team-a"))
	hooks(objs)
	want := []string{"ConfigMap team-a/empty", "ConfigMap team-a/empty-tfjob-logs", "Role team-a/empty-tfjob", "RoleBinding team-a/empty-tfjob", "ServiceAccount team-a/empty-tfjob"}
	if d := cmp.Diff(want, keys(objs)); d != "" {
		t.Errorf("objects (-want +got):\n%s", d)
	}
	for _, r := range objs["Role team-a/empty-tfjob"]["rules"].([]any) {
		if names, ok := r.(map[string]any)["resourceNames"]; ok && len(names.([]any)) == 0 {
			t.Errorf("rule %v grants every object of its kinds", r)
		}
	}
}
