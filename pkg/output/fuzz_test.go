package output

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/manifest"
)

// FuzzDirWriter writes arbitrary objects (any kind and name, the text of
// any document) over directories in several states. tfgen's own directory
// and an empty one are replaced by exactly the files Files names, each
// inside the directory; any other is refused and left as it was; nothing
// is ever left beside the directory.
func FuzzDirWriter(f *testing.F) {
	f.Add(byte(0), []byte("ConfigMap/j\nSecret/s"))
	f.Add(byte(1), []byte("Service/../../etc\n/\n.."))
	f.Add(byte(2), []byte("StatefulSet/a\nStatefulSet/a"))
	f.Add(byte(3), []byte("x/y"))
	f.Add(byte(4), []byte("kustomization/yaml\n.tfgen/output"))
	f.Fuzz(func(t *testing.T, state byte, spec []byte) {
		var its []Item
		for i, line := range bytes.Split(spec, []byte("\n")) {
			kind, name, _ := strings.Cut(string(line), "/")
			it := Item{Object: manifest.Object{"apiVersion": "v1", "kind": kind, "metadata": map[string]any{"name": name}}}
			if i%2 == 1 {
				it.Raw = line
			}
			its = append(its, it)
		}
		parent := t.TempDir()
		dir := filepath.Join(parent, "out")
		refused := false
		switch state % 5 {
		case 1:
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		case 2, 3:
			if err := WriteDir(dir, its[:len(its)/2]); err != nil {
				t.Fatal(err)
			}
			if state%5 == 3 {
				write(t, filepath.Join(dir, "mine.yaml"), "x")
				refused = true
			}
		case 4:
			write(t, filepath.Join(dir, Kustomization), "resources: []\n")
			refused = true
		}
		before := snapshot(t, dir)
		err := WriteDir(dir, its)
		if diff := cmp.Diff([]string{"out"}, list(t, parent)); diff != "" {
			t.Fatalf("left beside the directory (-want +got):\n%s", diff)
		}
		if refused {
			if err == nil || !strings.Contains(err.Error(), dir) {
				t.Fatalf("err = %v, want an error naming %s", err, dir)
			}
			if diff := cmp.Diff(before, snapshot(t, dir)); diff != "" {
				t.Fatalf("refused directory changed (-before +after):\n%s", diff)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		names, contents, err := Files(its)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{Mark: string(mark(names))}
		for _, n := range names {
			if n != filepath.Base(n) || strings.HasPrefix(n, ".") {
				t.Fatalf("file name %q is not a plain name in the directory", n)
			}
			want[n] = string(contents[n])
		}
		if diff := cmp.Diff(want, snapshot(t, dir)); diff != "" {
			t.Fatalf("directory (-want +got):\n%s", diff)
		}
	})
}
