package input

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// job is a TFJob whose training container has field: value, on line 13.
func job(field, value string) string {
	return "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata:\n  name: x\nspec:\n  tfReplicaSpecs:\n    Worker:\n" +
		"      template:\n        spec:\n          containers:\n          - name: tensorflow\n            image: x\n" +
		"            " + field + ": " + value + "\n"
}

func seqs(n int) string  { return strings.Repeat("[", n) + strings.Repeat("]", n) }
func maps(n int) string  { return strings.Repeat("{a: ", n) + "1" + strings.Repeat("}", n) }
func jmaps(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
func mixed(n int) string { return strings.Repeat("[{a: ", n) + "1" + strings.Repeat("}]", n) }

// aliasChain is a document whose anchors each nest the one before
// levels deep, so that n of them nest n*levels deep once expanded while
// none is deeper than levels as written.
func aliasChain(n, levels int) string {
	var b strings.Builder
	b.WriteString("spec:\n  x0: &a0 1\n")
	for k := 1; k <= n; k++ {
		fmt.Fprintf(&b, "  x%d: &a%d %s*a%d%s\n", k, k, strings.Repeat("[", levels), k-1, strings.Repeat("]", levels))
	}
	return b.String()
}

// TestDepthLimit: a document nested more than MaxDepth deep, however and
// wherever, is one short *LimitError naming the file, the line and, where
// it can be told, the field; before, a sequence in a field value was read
// at any depth: a million levels overflowed the stack (exit 2 with a
// goroutine dump), and 100,000 printed the whole value in a validation
// error.
func TestDepthLimit(t *testing.T) {
	const argsPath = "spec.tfReplicaSpecs.Worker.template.spec.containers[0].args"
	tests := []struct {
		name, doc string
		line      int
		// path starts the field the error names; "" for none.
		path string
	}{
		{"a sequence in a field, 100,000 deep", job("args", seqs(100_000)), 13, argsPath + "[0][0][0]"},
		{"a sequence in a field, 1,000,000 deep", job("args", seqs(1_000_000)), 13, argsPath + "[0][0][0]"},
		{"the same in command", job("command", seqs(1_000_000)), 13, "spec.tfReplicaSpecs.Worker.template.spec.containers[0].command[0]"},
		{"in an env value", job("env", "[{name: A, value: "+seqs(100_000)+"}]"), 13, "spec.tfReplicaSpecs.Worker.template.spec.containers[0].env[0].value[0]"},
		{"in an annotation", "metadata:\n  annotations:\n    a: " + seqs(100_000) + "\n", 3, "metadata.annotations.a[0][0]"},
		{"flow maps", job("args", maps(100_000)), 13, argsPath + ".a.a.a"},
		{"JSON maps", job("args", jmaps(100_000)), 13, argsPath + ".a.a.a"},
		{"maps in sequences", job("args", mixed(100_000)), 13, argsPath + "[0].a[0].a"},
		{"a document of nothing else", seqs(1_000_000) + "\n", 1, "[0][0][0]"},
		{"a JSON document", `{"kind": "TFJob", "spec": {"a": ` + seqs(100_000) + "}}\n", 1, "spec.a[0][0]"},
		{"a List item", "apiVersion: v1\nkind: List\nitems:\n- " + seqs(100_000) + "\n", 4, "items[0][0][0]"},
		{"a sequence over many lines", job("args", strings.Repeat("[\n", 20_000)+strings.Repeat("]", 20_000)), 10013, ""},
		{"block sequences on one line", job("args", "\n              "+strings.Repeat("- ", 100_000)+"x"), 14, ""},
		{"aliases", aliasChain(10, 5000), 4, "spec.x2[0][0][0]"},
		{"one level too many, within what each parser reads", "a: " + seqs(MaxDepth) + "\n", 1, "a[0][0][0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Document{File: "deep.yaml", Line: 1, Raw: []byte(tt.doc)}.JSON()
			var le *LimitError
			if !errors.As(err, &le) {
				t.Fatalf("got %v, want a *LimitError", err)
			}
			if le.Line != tt.line {
				t.Errorf("line %d, want %d: %v", le.Line, tt.line, err)
			}
			want := fmt.Sprintf("deep.yaml:%d: ", tt.line)
			if tt.path != "" {
				want += tt.path
			} else {
				want += "the document nests lists and objects more than 10000 deep"
			}
			if msg := err.Error(); !strings.HasPrefix(msg, want) || !strings.HasSuffix(msg, "more than 10000 deep, the most tfgen reads") || len(msg) > 250 {
				t.Errorf("error %q (%d bytes): want one of at most 250 bytes starting %q", msg, len(msg), want)
			}
		})
	}
}

// TestDepthLimitBoundary: MaxDepth levels are read, whichever parser reads
// them, and one more are not.
func TestDepthLimitBoundary(t *testing.T) {
	for _, tc := range []struct {
		name string
		doc  func(levels int) string // a document nested levels deep
	}{
		{"plain YAML", func(n int) string { return "a: " + seqs(n-1) + "\n" }},
		{"YAML", func(n int) string { return "a: !!seq " + seqs(n-1) + "\n" }},
		{"JSON", func(n int) string { return `{"a": ` + seqs(n-1) + "}" }},
		{"aliases", func(n int) string { return "x: &x " + seqs(n-2) + "\ny: [*x]\n" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := (Document{File: "f", Line: 1, Raw: []byte(tc.doc(MaxDepth))}).JSON(); err != nil {
				t.Errorf("%d levels: %v", MaxDepth, err)
			}
			_, err := Document{File: "f", Line: 1, Raw: []byte(tc.doc(MaxDepth + 1))}.JSON()
			var le *LimitError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), "nested more than 10000 deep") {
				t.Errorf("%d levels: got %v, want the depth limit", MaxDepth+1, err)
			}
		})
	}
}

// TestDepthLimitCheap: a million levels are refused in a few megabytes.
func TestDepthLimitCheap(t *testing.T) {
	doc := []byte(job("args", seqs(1_000_000)))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Document{File: "deep.yaml", Line: 1, Raw: doc}.JSON()
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("no error")
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 32<<20 {
		t.Errorf("refusing a 2 MB document allocated %d MB", n>>20)
	}
}

// TestDepthLimitJSONFile: a .json file is held to the limit as it is
// split.
func TestDepthLimitJSONFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "deep.json")
	if err := os.WriteFile(p, []byte("{\"kind\": \"A\"}\n"+`{"spec": {"a": `+seqs(1_000_000)+"}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	docs, err := ReadPath(p, nil)
	want := p + ":2: spec.a[0][0][0]"
	var le *LimitError
	if len(docs) != 1 || !errors.As(err, &le) || !strings.HasPrefix(err.Error(), want) || len(err.Error()) > 250+len(p) {
		t.Errorf("got %d documents and %v, want 1 and an error starting %q", len(docs), err, want)
	}
}

// TestAnchorContainingItself: an alias inside its own anchor is a syntax
// error; measuring its expansion overflowed the stack.
func TestAnchorContainingItself(t *testing.T) {
	_, err := Document{File: "f.yaml", Line: 1, Raw: []byte("a: &a [*a]\n")}.JSON()
	var se *SyntaxError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "anchor 'a' value contains itself") {
		t.Errorf("got %v, want a syntax error", err)
	}
}

// TestMergeKeyDepth: a merge key puts its map's members a level up, so
// merges add no depth.
func TestMergeKeyDepth(t *testing.T) {
	doc := "x: &x {a: " + seqs(MaxDepth-2) + "}\ny: &y {<<: *x}\nz: &z {<<: [*y]}\nw: {<<: *z, b: 1}\n"
	if _, err := (Document{File: "f", Line: 1, Raw: []byte(doc)}).JSON(); err != nil {
		t.Errorf("merges: %v", err)
	}
}

func TestQuote(t *testing.T) {
	long := strings.Repeat("é", 100) // 200 bytes
	for _, tc := range []struct{ got, want string }{
		{Quote("a\nb"), `"a\nb"`},
		{Quote(long), `"` + strings.Repeat("é", 50) + `"… (200 bytes)`},
		{Excerpt("[1,2]"), "[1,2]"},
		{Excerpt(seqs(100)), strings.Repeat("[", 100) + "… (200 bytes)"},
		{Shorten(strings.Repeat("x", MaxMessage+1)), strings.Repeat("x", MaxMessage) + "…"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
