package output

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tfgen/tfgen/pkg/manifest"
)

// Kustomization is the name of the file listing a directory's objects.
const Kustomization = "kustomization.yaml"

// Files returns the files of a directory output: one per item, named
// NN-kind-name.yaml in item order, and the kustomization listing them.
func Files(items []Item) (names []string, contents map[string][]byte, err error) {
	contents = map[string][]byte{}
	for i, it := range items {
		var buf bytes.Buffer
		if err := appendYAML(&buf, it); err != nil {
			return nil, nil, err
		}
		n := fileName(i, width(len(items)), it)
		names = append(names, n)
		contents[n] = buf.Bytes()
	}
	k, err := kustomization(names)
	if err != nil {
		return nil, nil, err
	}
	contents[Kustomization] = k
	return append(names, Kustomization), contents, nil
}

// width is the number of digits that number n files: at least 2.
func width(n int) int {
	return max(2, len(fmt.Sprint(n-1)))
}

// fileName is the name of item i of a directory whose numbers have w digits.
func fileName(i, w int, it Item) string { return numbered(i, w, suffix(it)) }

// maxName is the longest file name Linux file systems take (NAME_MAX).
const maxName = 255

// suffix is what follows the number in an item's file name. The numbers
// keep names distinct, so a long kind or name is cut to keep the whole
// name within maxName, with room for a number of 10 digits.
func suffix(it Item) string {
	const room = maxName - 10 - len("--.yaml")
	kind := slug(it.Object.Kind())
	kind = kind[:min(len(kind), room/4)]
	name := slug(it.Object.Name())
	name = name[:min(len(name), room-len(kind))]
	return "-" + kind + "-" + name + ".yaml"
}

func numbered(i, w int, suffix string) string { return fmt.Sprintf("%0*d%s", w, i, suffix) }

func kustomization(names []string) ([]byte, error) {
	resources := make([]any, len(names))
	for i, n := range names {
		resources[i] = n
	}
	return manifest.MarshalYAML(map[string]any{
		"apiVersion": "kustomize.config.k8s.io/v1beta1",
		"kind":       "Kustomization",
		"resources":  resources,
	})
}

// slug keeps lowercase letters, digits, dots and dashes of s.
func slug(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '-':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return '-'
	}, s)
	if s = strings.Trim(s, "-."); s == "" {
		return "unnamed"
	}
	return s
}

// WriteDir writes items into dir atomically, as a DirWriter does.
func WriteDir(dir string, items []Item) error {
	w, err := NewDirWriter(dir)
	if err != nil {
		return err
	}
	defer w.Discard()
	for _, it := range items {
		if err := w.Add(it); err != nil {
			return err
		}
	}
	return w.Commit()
}

// DirWriter writes one file per item and a kustomization.yaml listing them
// into a new directory beside its destination, and on Commit swaps it into
// place after one sync of the whole directory. It replaces only a directory
// that is absent, empty, or tfgen's own (see Mark); on any error, or
// without a Commit, the destination is left untouched.
type DirWriter struct {
	dir, tmp string
	d        *os.File // tmp, open
	// names of the files written, numbered with 2 digits until Commit
	// knows how many there are, and what follows each number.
	names, suffixes []string
	scratch         bytes.Buffer
}

// NewDirWriter checks that dir may be replaced and makes the directory
// the items are written into.
func NewDirWriter(dir string) (*DirWriter, error) {
	dir, err := destination(dir)
	if err != nil {
		return nil, err
	}
	if err := replaceable(dir); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".tfgen-")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", dir, err)
	}
	d, err := os.Open(tmp)
	if err == nil {
		err = d.Chmod(0o755)
	}
	if err != nil {
		if d != nil {
			d.Close()
		}
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("write %s: %w", dir, err)
	}
	return &DirWriter{dir: dir, tmp: tmp, d: d}, nil
}

// destination returns the directory dir names, absolute and with symbolic
// links resolved, so that the swap replaces the directory itself.
func destination(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("write %s: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if filepath.Dir(abs) == abs {
		return "", fmt.Errorf("write %s: cannot replace the root directory", dir)
	}
	return abs, nil
}

// Add implements Writer.
func (w *DirWriter) Add(it Item) error {
	w.scratch.Reset()
	if err := appendYAML(&w.scratch, it); err != nil {
		return err
	}
	sfx := suffix(it)
	name := numbered(len(w.names), 2, sfx)
	if err := writeFileAt(w.d, name, w.scratch.Bytes()); err != nil {
		return fmt.Errorf("write %s: %w", w.dir, err)
	}
	w.names = append(w.names, name)
	w.suffixes = append(w.suffixes, sfx)
	return nil
}

// Commit implements Writer: it numbers the files with as many digits as
// their count needs, writes the kustomization and the mark, syncs the new
// directory once and swaps it into place.
func (w *DirWriter) Commit() error {
	if w.tmp == "" {
		return fmt.Errorf("write %s: nothing to commit", w.dir)
	}
	defer w.Discard()
	if err := w.commit(); err != nil {
		return fmt.Errorf("write %s: %w", w.dir, err)
	}
	return nil
}

func (w *DirWriter) commit() error {
	if n := width(len(w.names)); n > 2 {
		for i, old := range w.names {
			name := numbered(i, n, w.suffixes[i])
			if err := renameAt(w.d, old, name); err != nil {
				return err
			}
			w.names[i] = name
		}
	}
	k, err := kustomization(w.names)
	if err != nil {
		return err
	}
	if err := writeFileAt(w.d, Kustomization, k); err != nil {
		return err
	}
	if err := writeFileAt(w.d, Mark, mark(append(w.names, Kustomization))); err != nil {
		return err
	}
	// One sync makes every file and the directory durable before the swap
	// makes them visible; a sync of the parent then makes the swap durable.
	if err := syncTree(w.d, append(w.names, Kustomization, Mark)); err != nil {
		return err
	}
	if err := swap(w.tmp, w.dir); err != nil {
		return err
	}
	return syncDir(filepath.Dir(w.dir))
}

// Discard implements Writer: it removes the new directory, which after a
// Commit holds the old contents.
func (w *DirWriter) Discard() {
	if w.d != nil {
		w.d.Close()
		w.d = nil
	}
	if w.tmp != "" {
		os.RemoveAll(w.tmp)
		w.tmp = ""
	}
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
