package manifest

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	yaml3 "go.yaml.in/yaml/v3"
)

const statefulSet = `# a comment
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: "mnist-worker"
  labels: {"app.kubernetes.io/name":"tfjob","training.kubeflow.org/job-name":"mnist"}
spec:
  replicas: 3
  podManagementPolicy: Parallel
  selector:
    matchLabels:
      training.kubeflow.org/job-name: mnist
  template: {"spec":{"containers":[{"name":"tensorflow","args":["--x","1"]}]}}
  empty:
  list:
  - a
  - name: b
    value: "c d"
  -
    nested: true
  after: null
`

func TestParseFastAgreesWithSlow(t *testing.T) {
	docs := []string{
		statefulSet,
		"a: b\n",
		"a:\n- 1\n- 2\nb: c\n",
		"a:\n  - x: 1\n    z: 2\n  - z\n", "a:\n- x: 1\n  z: 2\n",
		`"quoted key": 1` + "\n",
		"k: /usr/bin/python3\nurl: http://x.y/z\nmail: a@b\n",
	}
	for _, d := range docs {
		fast, ok := parseFast([]byte(d))
		if !ok {
			t.Errorf("fast path refused:\n%s", d)
			continue
		}
		slow, err := parseSlow([]byte(d))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(slow, fast); diff != "" {
			t.Errorf("fast parse differs (-slow +fast):\n%s", diff)
		}
	}
}

func TestParseFastRefuses(t *testing.T) {
	for _, d := range []string{
		"a: yes\n", "a: on\n", "a: 1.5\n", "a: 012\n", "a: |\n  x\n", "a: &x 1\n", "a: b c\n",
		"a: 1 # c\n", "a:\tb\n", "a: [1.5]\n", "a: {x: 1}\n", "a: b\na: c\n", "- a\n", "a: 2001-01-01\n",
		"on: 1\n", "a:\n- - x\n", "a:\n   - b\n  - c\n", "a: b\n  c: d\n",
	} {
		if _, ok := parseFast([]byte(d)); ok {
			t.Errorf("fast path accepted %q", d)
		}
	}
}

func TestSplitDocuments(t *testing.T) {
	in := "---\na: 1\n---\n# only a comment\n--- # sep\nb: 2\n---x\nc: 3\n"
	got := SplitDocuments([]byte(in))
	want := []string{"a: 1\n", "b: 2\n---x\nc: 3\n"}
	if len(got) != len(want) {
		t.Fatalf("got %d documents %q", len(got), got)
	}
	for i := range want {
		if string(got[i]) != want[i] {
			t.Errorf("doc %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestYAMLRoundTrip(t *testing.T) {
	values := []any{
		"", " lead", "trail ", "yes", "No", "null", "~", "true", "1", "-1", "0x1F", "1e3", "1.5", "2Gi", "500m", "1.5Gi",
		"08Gi", "2001-12-14", "1:20", "--epochs", "-", "- x", "? x", ": x", "a: b", "a #b", "a#b", "#x", "@x", "a@b",
		"{x}", "[x]", "it's", `say "hi"`, `{"a":"b"}`, `back\slash`, "tab\there", "line\nbreak", "line\nbreak\n",
		"two\n\n", "  indented\nx", "x\n  more\n", "trailing \nspace", "nel\u0085", "ls\u2028", "émoji 🎉", "bom\ufeff",
		"\x01ctl", "---", "...", "=", "<<", ".inf", "+1", "a,b", "/bin/sh", "python3 -u train.py", "key:", "x\n \ny",
		int64(0), int64(-5), 1.5, true, nil, map[string]any{}, []any{},
		[]any{[]any{"a", []any{}}, map[string]any{}, map[string]any{"k": []any{"v"}}, "multi\nline"},
	}
	doc := map[string]any{}
	for i, v := range values {
		doc[string(rune('a'+i%26))+string(rune('a'+i/26))] = v
	}
	doc["list"] = values
	doc["weird key: #"] = "v"
	b, err := MarshalYAML(doc)
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseSlow(b)
	if err != nil {
		t.Fatalf("sigs.k8s.io/yaml cannot read our output: %v\n%s", err, b)
	}
	if diff := cmp.Diff(Object(normalizeInts(doc).(map[string]any)), got); diff != "" {
		t.Errorf("YAML 1.1 round trip (-want +got):\n%s\n%s", diff, b)
	}
	var v3 map[string]any
	if err := yaml3.Unmarshal(b, &v3); err != nil {
		t.Fatalf("yaml.v3 cannot read our output: %v", err)
	}
	if diff := cmp.Diff(normalizeInts(doc), normalizeInts(v3)); diff != "" {
		t.Errorf("YAML 1.2 round trip (-want +got):\n%s", diff)
	}
	again, _ := MarshalYAML(got)
	if !bytes.Equal(b, again) {
		t.Errorf("output not stable:\n%s\n---\n%s", b, again)
	}
}

// normalizeInts makes every integer an int64, as the parsers differ on int.
func normalizeInts(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, e := range t {
			m[k] = normalizeInts(e)
		}
		return m
	case Object:
		return normalizeInts(map[string]any(t))
	case []any:
		s := make([]any, len(t))
		for i, e := range t {
			s[i] = normalizeInts(e)
		}
		return s
	case int:
		return int64(t)
	case string:
		return string([]rune(t))
	}
	return v
}
