package output

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/manifest"
)

func items() []Item {
	return []Item{
		{Object: manifest.Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "j"}, "data": map[string]any{"k": "v"}}},
		{Object: manifest.Object{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "s"}},
			Raw: []byte("# kept as written\napiVersion: v1\nkind: Secret\nmetadata: {name: s}")},
	}
}

func TestStream(t *testing.T) {
	got, err := Stream(items())
	if err != nil {
		t.Fatal(err)
	}
	want := "---\napiVersion: v1\ndata:\n  k: v\nkind: ConfigMap\nmetadata:\n  name: j\n---\n# kept as written\napiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("Stream (-want +got):\n%s", diff)
	}
}

func TestList(t *testing.T) {
	got, err := List(items())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(got), "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": [\n    {\n      \"apiVersion\": \"v1\",\n      \"data\"") {
		t.Errorf("List:\n%s", got)
	}
}

func TestWriteDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := WriteDir(dir, items()); err != nil {
		t.Fatal(err)
	}
	want := []string{Mark, "00-configmap-j.yaml", "01-secret-s.yaml", "kustomization.yaml"}
	if diff := cmp.Diff(want, list(t, dir)); diff != "" {
		t.Fatalf("files (-want +got):\n%s", diff)
	}
	k, _ := os.ReadFile(filepath.Join(dir, Kustomization))
	if string(k) != "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- 00-configmap-j.yaml\n- 01-secret-s.yaml\n" {
		t.Errorf("kustomization.yaml:\n%s", k)
	}

	// Replacing tfgen's own output leaves only the new files, and nothing beside dir.
	if err := WriteDir(dir, items()[:1]); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{Mark, "00-configmap-j.yaml", "kustomization.yaml"}, list(t, dir)); diff != "" {
		t.Errorf("files after replace (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"out"}, list(t, filepath.Dir(dir))); diff != "" {
		t.Errorf("left beside dir (-want +got):\n%s", diff)
	}

	// A failure leaves the old output untouched.
	bad := []Item{{Object: manifest.Object{"kind": "X", "metadata": map[string]any{"name": "x"}, "bad": make(chan int)}}}
	if err := WriteDir(dir, bad); err == nil {
		t.Fatal("want an error")
	}
	if diff := cmp.Diff([]string{Mark, "00-configmap-j.yaml", "kustomization.yaml"}, list(t, dir)); diff != "" {
		t.Errorf("files after failure (-want +got):\n%s", diff)
	}
}

func TestWriteDirRefusesForeignDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteDir(dir, items())
	if err == nil || !strings.Contains(err.Error(), "tfgen did not write it") {
		t.Fatalf("err = %v", err)
	}
	if diff := cmp.Diff([]string{"README.md"}, list(t, dir)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

func list(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
