package output

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
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
	width := len(fmt.Sprint(len(items) - 1))
	if width < 2 {
		width = 2
	}
	contents = map[string][]byte{}
	for i, it := range items {
		name := fmt.Sprintf("%0*d-%s-%s.yaml", width, i, slug(it.Object.Kind()), slug(it.Object.Name()))
		var buf bytes.Buffer
		if err := appendYAML(&buf, it); err != nil {
			return nil, nil, err
		}
		names = append(names, name)
		contents[name] = buf.Bytes()
	}
	resources := make([]any, len(names))
	for i, n := range names {
		resources[i] = n
	}
	k, err := manifest.MarshalYAML(map[string]any{
		"apiVersion": "kustomize.config.k8s.io/v1beta1",
		"kind":       "Kustomization",
		"resources":  resources,
	})
	if err != nil {
		return nil, nil, err
	}
	contents[Kustomization] = k
	return append(names, Kustomization), contents, nil
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

// WriteDir writes items into dir atomically: into a new directory beside
// it, then swapped into place. An existing dir is replaced only after every
// file is written, and only when it is empty or holds a kustomization.yaml
// (tfgen's earlier output); on any error it is left untouched.
func WriteDir(dir string, items []Item) (err error) {
	names, contents, err := Files(items)
	if err != nil {
		return err
	}
	dir = filepath.Clean(dir)
	if err := replaceable(dir); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".tfgen-")
	if err != nil {
		return fmt.Errorf("write %s: %w", dir, err)
	}
	defer func() {
		if rmErr := os.RemoveAll(tmp); err == nil && rmErr != nil {
			err = fmt.Errorf("write %s: %w", dir, rmErr)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("write %s: %w", dir, err)
	}
	for _, n := range names {
		if err := writeFile(filepath.Join(tmp, n), contents[n]); err != nil {
			return fmt.Errorf("write %s: %w", dir, err)
		}
	}
	if err := swap(tmp, dir); err != nil {
		return fmt.Errorf("write %s: %w", dir, err)
	}
	return nil
}

// replaceable refuses to replace a file, or a directory tfgen did not write.
func replaceable(dir string) error {
	info, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("write %s: it exists and is not a directory", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, Kustomization)); err != nil {
		return fmt.Errorf("write %s: the directory is not empty and has no %s, so tfgen did not write it; remove it or choose another", dir, Kustomization)
	}
	return nil
}

func writeFile(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
