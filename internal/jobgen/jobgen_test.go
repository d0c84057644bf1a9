package jobgen

import (
	"bytes"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestDeterministic: a seed makes the same jobs, another seed others, and
// every job is a document with apiVersion, kind and a name of its own.
func TestDeterministic(t *testing.T) {
	a, b, c := New(1), New(1), New(2)
	names := map[string]bool{}
	differ := false
	for range 200 {
		ja, jb, jc := a.Next(), b.Next(), c.Next()
		if !bytes.Equal(ja.YAML, jb.YAML) || len(ja.Flags) != len(jb.Flags) {
			t.Fatalf("seed 1 made two different jobs:\n%s\n%s", ja.YAML, jb.YAML)
		}
		differ = differ || !bytes.Equal(ja.YAML, jc.YAML)
		var doc struct {
			APIVersion, Kind string
			Metadata         struct{ Name string }
		}
		if err := yaml.Unmarshal(ja.YAML, &doc); err != nil || doc.APIVersion == "" || doc.Kind == "" || doc.Metadata.Name == "" {
			t.Fatalf("not a job (%v):\n%s", err, ja.YAML)
		}
		if names[doc.Metadata.Name] {
			t.Errorf("name %s twice", doc.Metadata.Name)
		}
		names[doc.Metadata.Name] = true
	}
	if !differ {
		t.Error("seeds 1 and 2 made the same jobs")
	}
}
