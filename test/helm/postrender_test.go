package helm

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/test/harness"
)

// trainerChart emits a TFJob and a ConfigMap.
var trainerChart = filepath.Join("testdata", "trainer")

var plugin struct {
	once sync.Once
	res  harness.Result
}

// installPlugin installs plugins/tfgen, tfgen's Helm 4 post-renderer
// plugin, into the tests' Helm home, once.
func installPlugin(t *testing.T) {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join(root, "plugins", "tfgen"))
	if err != nil {
		t.Fatal(err)
	}
	plugin.once.Do(func() { plugin.res = helm(t).Run(nil, "plugin", "install", dir) })
	if plugin.res.Err != nil {
		t.Fatalf("helm plugin install %s: %v\n%s", dir, plugin.res.Err, plugin.res.Stderr)
	}
}

// TestPostRenderer renders a chart that emits a TFJob and a ConfigMap
// with `--post-renderer tfgen`: the TFJob becomes the objects tfgen render
// makes of it, the ConfigMap passes through, and Helm's bookkeeping
// annotation is gone from every object.
func TestPostRenderer(t *testing.T) {
	installPlugin(t)
	plain := helm(t).Must(t, nil, "template", "demo", trainerChart, "-n", "team-a")
	for _, tc := range []struct {
		name  string
		flags []string // tfgen render flags, as --post-renderer-args
		also  []string // objects the flags add
	}{
		{name: "defaults"},
		{name: "gang scheduling and a GPU preset", flags: []string{"--gang-scheduler=volcano", "--cloud=gke"}, also: []string{"PodGroup /demo"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"template", "demo", trainerChart, "-n", "team-a", "--post-renderer", "tfgen"}
			for _, f := range tc.flags {
				args = append(args, "--post-renderer-args="+f)
			}
			out := helm(t).Must(t, nil, args...)
			got := parse(t, out)
			want := parse(t, tfgen.Must(t, plain, append([]string{"render", "-f", "-"}, tc.flags...)...))
			if d := diffObjects(want, got); d != "" {
				t.Errorf("helm template --post-renderer tfgen differs from tfgen render of the chart's output:\n%s", d)
			}
			wantKeys := append([]string{"ConfigMap /demo", "ConfigMap /demo-config", "ConfigMap /demo-tfjob-logs", "Role /demo-tfjob", "RoleBinding /demo-tfjob",
				"Service /demo-worker", "ServiceAccount /demo-tfjob", "StatefulSet /demo-keeper", "StatefulSet /demo-worker"}, tc.also...)
			if d := cmp.Diff(keys(setOf(wantKeys)), keys(got)); d != "" {
				t.Errorf("objects (-want +got):\n%s", d)
			}
			if d := cmp.Diff(parse(t, plain)["ConfigMap /demo-config"], got["ConfigMap /demo-config"]); d != "" {
				t.Errorf("the chart's ConfigMap changed (-want +got):\n%s", d)
			}
			if strings.Contains(string(out), "postrender") {
				t.Errorf("Helm's filename annotation is left:\n%s", out)
			}
			// Helm files the job's objects under the job's template.
			if n := strings.Count(string(out), "# Source: trainer/templates/tfjob.yaml"); n != len(wantKeys)-1 {
				t.Errorf("%d objects filed under trainer/templates/tfjob.yaml, want %d:\n%s", n, len(wantKeys)-1, out)
			}
		})
	}
}

func setOf(list []string) map[string]bool {
	m := map[string]bool{}
	for _, s := range list {
		m[s] = true
	}
	return m
}
