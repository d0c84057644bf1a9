package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/manifest"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWriteDirRefuses: only an empty directory or tfgen's own is replaced;
// anything else is an error naming the directory (and the stranger), and
// is left as it was, with nothing beside it.
func TestWriteDirRefuses(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string
	}{{
		name: "a hand-written kustomization",
		setup: func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, Kustomization), "resources: [deploy.yaml]\n")
			write(t, filepath.Join(dir, "deploy.yaml"), "kind: Deployment\n")
		},
		want: "the directory is not empty and has no .tfgen-output (the mark tfgen leaves in the directories it writes), so tfgen did not write it; remove it or choose another directory",
	}, {
		name: "a file added to tfgen's output",
		setup: func(t *testing.T, dir string) {
			if err := WriteDir(dir, items()); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(dir, "patch.yaml"), "mine\n")
		},
		want: `"patch.yaml" was not written by tfgen (.tfgen-output does not list it); move it away or choose another directory`,
	}, {
		name: "a directory added to tfgen's output",
		setup: func(t *testing.T, dir string) {
			if err := WriteDir(dir, items()); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(dir, "overlays", "x.yaml"), "mine\n")
		},
		want: `"overlays" was not written by tfgen (.tfgen-output does not list it); move it away or choose another directory`,
	}, {
		name: "a mark that is a directory",
		setup: func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, Mark, "x"), "")
		},
		want: ".tfgen-output is not a regular file",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "out")
			tt.setup(t, dir)
			before := snapshot(t, dir)
			err := WriteDir(dir, items())
			if want := "write " + dir + ": " + tt.want; err == nil || err.Error() != want {
				t.Fatalf("err = %v\nwant %s", err, want)
			}
			if diff := cmp.Diff(before, snapshot(t, dir)); diff != "" {
				t.Errorf("directory changed (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"out"}, list(t, parent)); diff != "" {
				t.Errorf("left beside it (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("a file", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "out")
		write(t, p, "x")
		if err := WriteDir(p, items()); err == nil || !strings.Contains(err.Error(), "it exists and is not a directory") {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestWriteDirMany: past 100 files the numbers get more digits, in order.
func TestWriteDirMany(t *testing.T) {
	var its []Item
	for i := range 101 {
		its = append(its, Item{Object: manifest.Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": fmt.Sprintf("c%d", i)}}})
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := WriteDir(dir, its); err != nil {
		t.Fatal(err)
	}
	names, contents, err := Files(its)
	if err != nil {
		t.Fatal(err)
	}
	if names[0] != "000-configmap-c0.yaml" || names[100] != "100-configmap-c100.yaml" {
		t.Errorf("names %s ... %s", names[0], names[100])
	}
	got := snapshot(t, dir)
	want := map[string]string{Mark: string(mark(names))}
	for n, c := range contents {
		want[n] = string(c)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("directory (-want +got):\n%s", diff)
	}
}

// TestWriteDirThroughSymlink: a link to tfgen's directory stays a link;
// the directory it names is replaced.
func TestWriteDirThroughSymlink(t *testing.T) {
	parent := t.TempDir()
	real, link := filepath.Join(parent, "real"), filepath.Join(parent, "link")
	if err := WriteDir(real, items()); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteDir(link, items()[:1]); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link replaced: %v", err)
	}
	if diff := cmp.Diff([]string{Mark, "00-configmap-j.yaml", Kustomization}, list(t, real)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

// TestDirWriterDiscard: without Commit, nothing is left anywhere.
func TestDirWriterDiscard(t *testing.T) {
	parent := t.TempDir()
	w, err := NewDirWriter(filepath.Join(parent, "out"))
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items() {
		if err := w.Add(it); err != nil {
			t.Fatal(err)
		}
	}
	w.Discard()
	if got := list(t, parent); len(got) != 0 {
		t.Errorf("left behind: %v", got)
	}
}

// TestStreamWriterJSON: the List written item by item is what
// encoding/json writes for the whole list, for any number of items.
func TestStreamWriterJSON(t *testing.T) {
	for n := range 3 {
		its := items()[:0]
		for i := range n {
			its = append(its, items()[i%2])
		}
		got, err := List(its)
		if err != nil {
			t.Fatal(err)
		}
		objs := make([]manifest.Object, len(its))
		for i, it := range its {
			objs[i] = it.Object
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		list := struct {
			APIVersion string            `json:"apiVersion"`
			Kind       string            `json:"kind"`
			Items      []manifest.Object `json:"items"`
		}{"v1", "List", objs}
		if err := enc.Encode(list); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.String(), string(got)); diff != "" {
			t.Errorf("%d items (-want +got):\n%s", n, diff)
		}
	}
}

// TestStreamWriterSpool: output past what is kept in memory comes out
// whole, and none of it before Commit.
func TestStreamWriterSpool(t *testing.T) {
	big := Item{Object: manifest.Object{"kind": "ConfigMap"}, Raw: bytes.Repeat([]byte("# x\n"), spoolMemory/4/3)}
	var out bytes.Buffer
	w, err := NewStreamWriter(&out, YAML)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if err := w.Add(big); err != nil {
			t.Fatal(err)
		}
	}
	if w.spool.file == nil {
		t.Fatal("the output was not moved to a file")
	}
	if out.Len() != 0 {
		t.Fatalf("%d bytes written before Commit", out.Len())
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat("---\n"+string(big.Raw), 5)
	if out.String() != want {
		t.Errorf("got %d bytes, want %d", out.Len(), len(want))
	}
}

// snapshot returns the files below dir and their contents.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = string(b)
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return files
}

// TestFileNamesWithinNameMax writes objects whose kind and name are as
// long as the API server allows, and longer: every file name fits in
// NAME_MAX, so the write succeeds.
func TestFileNamesWithinNameMax(t *testing.T) {
	long := strings.Repeat("a", 253)
	its := []Item{
		{Object: manifest.Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": long}}},
		{Object: manifest.Object{"apiVersion": "v1", "kind": strings.Repeat("K", 300), "metadata": map[string]any{"name": long + long}}},
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := WriteDir(dir, its); err != nil {
		t.Fatal(err)
	}
	names, _, err := Files(its)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if len(n) > maxName {
			t.Errorf("file name of %d bytes, want at most %d", len(n), maxName)
		}
	}
}
