package input

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name string
		data string
		want []Document // Raw compared trimmed
	}{{
		name: "single",
		data: "kind: A\n",
		want: []Document{{File: "f", Index: 0, Line: 1, Raw: []byte("kind: A")}},
	}, {
		name: "stream with empty and comment-only documents",
		data: "---\n# only a comment\n---\nkind: A\n---\n\n---\nkind: B\n...\n",
		want: []Document{
			{File: "f", Index: 0, Line: 3, Raw: []byte("kind: A")},
			{File: "f", Index: 1, Line: 7, Raw: []byte("kind: B")},
		},
	}, {
		name: "content after the marker, directive, CRLF",
		data: "%YAML 1.1\r\n--- {kind: A}\r\n--- # c\r\nkind: B\r\n",
		want: []Document{
			{File: "f", Index: 0, Line: 2, Raw: []byte("{kind: A}")},
			{File: "f", Index: 1, Line: 3, Raw: []byte("# c\r\nkind: B")},
		},
	}, {
		name: "a --- inside a block scalar is indented, not a marker",
		data: "kind: A\ndata: |\n  ---\n  x\n",
		want: []Document{{File: "f", Line: 1, Raw: []byte("kind: A\ndata: |\n  ---\n  x")}},
	}, {
		name: "JSON stream",
		data: "{\"kind\": \"A\"}\n\n  {\"kind\":\n \"B\"}\nnull\n",
		want: []Document{
			{File: "f", Index: 0, Line: 1, Raw: []byte(`{"kind": "A"}`)},
			{File: "f", Index: 1, Line: 3, Raw: []byte("{\"kind\":\n \"B\"}")},
		},
	}, {
		name: "YAML flow mapping is not JSON",
		data: "{kind: A}\n",
		want: []Document{{File: "f", Line: 1, Raw: []byte("{kind: A}")}},
	}, {
		name: "byte order mark",
		data: "\xef\xbb\xbfkind: A\n",
		want: []Document{{File: "f", Line: 1, Raw: []byte("kind: A")}},
	}, {
		name: "empty", data: "", want: nil,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Split("f", []byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				got[i].Raw = []byte(strings.TrimSpace(string(got[i].Raw)))
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreUnexported(Document{})); diff != "" {
				t.Errorf("Split (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSplitSyntaxError(t *testing.T) {
	tests := []struct {
		name, file, data, want string
	}{{
		name: "second document", file: "job.yaml",
		data: "kind: A\n---\n# c\nkind: B\nspec:\n  x: y: z\n",
		want: "job.yaml:6: invalid YAML: mapping values are not allowed in this context",
	}, {
		name: "stdin", file: Stdin,
		data: "a: [1,\n",
		want: "<stdin>:2: invalid YAML: did not find expected node content",
	}, {
		name: "parser error in a block", file: "f.yaml",
		data: "a: 1\n---\nb:\n  - c\n d: 1\n",
		want: "f.yaml:5: invalid YAML: did not find expected key",
	}, {
		name: "unterminated string", file: "f.yaml",
		data: "a: 1\n---\nb: \"x\n",
		want: "f.yaml:4: invalid YAML: found unexpected end of stream",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Split(tt.file, []byte(tt.data))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("want *SyntaxError, got %v", err)
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

func TestJSONFileSyntaxError(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "j.json")
	if err := os.WriteFile(p, []byte("{\"kind\": \"A\",\n \"x\": }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Read([]string{p}, nil)
	want := p + ":2: invalid JSON: invalid character '}' looking for beginning of value"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestDuplicateKeys(t *testing.T) {
	d := Document{File: "f.yaml", Line: 10, Raw: []byte("a: 1\nb:\n  c: 1\n  c: 2\n")}
	err := d.DuplicateKeys()
	want := `f.yaml:13: invalid YAML: key "c" already set in map`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	if err := (Document{Raw: []byte("a: 1\n")}).DuplicateKeys(); err != nil {
		t.Errorf("no duplicates: %v", err)
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b.yml", "kind: B\n---\nkind: C\n")
	write("a.json", `{"kind":"A"}`)
	write("c.txt", "kind: ignored\n")
	write(".hidden.yaml", "kind: ignored\n")
	if err := os.Mkdir(filepath.Join(dir, "sub.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	docs, err := Read([]string{dir, "-"}, strings.NewReader("kind: D\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, filepath.Base(d.File)+":"+strings.TrimSpace(string(d.Raw)))
	}
	want := []string{`a.json:{"kind":"A"}`, "b.yml:kind: B", "b.yml:kind: C", "-:kind: D"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Read (-want +got):\n%s", diff)
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("a: b: c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Read([]string{filepath.Join(dir, "missing.yaml"), bad, "-", "-"}, strings.NewReader(""))
	if err == nil {
		t.Fatal("want errors")
	}
	for _, want := range []string{"missing.yaml", "bad.yaml:1: invalid YAML", "given more than once"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}
