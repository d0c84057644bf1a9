package input

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/tfgen/tfgen/pkg/manifest"
)

// decodeJSON reads JSON as Decode does: numbers as written.
func decodeJSON(t testing.TB, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%v:\n%s", err, b)
	}
	return v
}

// samePlainJSON checks that when doc takes the plain YAML fast path, its
// JSON reads as sigs.k8s.io/yaml's; it reports whether it took it.
func samePlainJSON(t testing.TB, doc Document) bool {
	t.Helper()
	p, err := doc.parse()
	if err != nil || p.dups != nil {
		return false
	}
	want, err := yaml.YAMLToJSONStrict(doc.Raw)
	if err != nil {
		t.Fatalf("%s:%d: parsed, but sigs.k8s.io/yaml refuses it: %v", doc.File, doc.Line, err)
	}
	if _, plain := manifest.ParsePlain(doc.Raw); !plain {
		return false
	}
	if diff := cmp.Diff(decodeJSON(t, want), decodeJSON(t, p.json)); diff != "" {
		t.Fatalf("%s:%d: (-sigs.k8s.io/yaml +fast):\n%s", doc.File, doc.Line, diff)
	}
	v, ok := doc.Value()
	if !ok {
		t.Fatalf("%s:%d: plain YAML has no Value", doc.File, doc.Line)
	}
	if diff := cmp.Diff(decodeJSON(t, want), v); diff != "" {
		t.Fatalf("%s:%d: Value (-sigs.k8s.io/yaml +fast):\n%s", doc.File, doc.Line, diff)
	}
	return true
}

// TestPlainYAML reads every example and test input both ways.
func TestPlainYAML(t *testing.T) {
	fast := 0
	for _, pattern := range []string{"../../examples/*.yaml", "../../examples/*/*.yaml", "../../testdata/*/*.yaml", "../../testdata/*.yaml"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			docs, _ := Split(f, b)
			for _, d := range docs {
				if samePlainJSON(t, d) {
					fast++
				}
			}
			if filepath.Base(f) == "tfjob-mnist.yaml" && fast == 0 {
				t.Errorf("%s does not take the fast path", f)
			}
		}
	}
	if fast < 10 {
		t.Errorf("only %d documents took the fast path", fast)
	}
}

// FuzzPlainYAML compares the fast path with sigs.k8s.io/yaml.
func FuzzPlainYAML(f *testing.F) {
	b, err := os.ReadFile("../../examples/tfjob-mnist.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte("a: 2Gi\nb:\n- c: \"1\"\n  d: [1, 2.5]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, _ := Split("fuzz.yaml", data)
		for _, d := range docs {
			samePlainJSON(t, d)
		}
	})
}
