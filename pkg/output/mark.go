package output

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Mark is the file tfgen writes into every directory it renders, listing
// the files it wrote. tfgen replaces a directory only when it is empty or
// carries this mark and holds nothing the mark does not list, so a
// directory written by hand (a kustomization of one's own, say) is never
// replaced, nor is a file added to tfgen's directory since.
const Mark = ".tfgen-output"

const markHeader = "# Written by tfgen render -o, which replaces this directory only while it\n" +
	"# holds nothing but the files listed here. Remove this file to keep tfgen out.\n"

// mark returns the contents of the mark of a directory of files names.
func mark(names []string) []byte {
	var b bytes.Buffer
	b.WriteString(markHeader)
	for _, n := range names {
		b.WriteString(n)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// replaceable refuses to replace a file, or a directory tfgen did not write.
func replaceable(dir string) error {
	info, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", dir, err)
	}
	if !info.IsDir() {
		return fmt.Errorf("write %s: it exists and is not a directory", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("write %s: %w", dir, err)
	}
	if len(entries) == 0 {
		return nil
	}
	listed, err := readMark(filepath.Join(dir, Mark))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("write %s: the directory is not empty and has no %s (the mark tfgen leaves in the directories it writes), so tfgen did not write it; remove it or choose another directory", dir, Mark)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", dir, err)
	}
	for _, e := range entries {
		if e.Name() != Mark && (!listed[e.Name()] || e.IsDir()) {
			return fmt.Errorf("write %s: %q was not written by tfgen (%s does not list it); move it away or choose another directory", dir, e.Name(), Mark)
		}
	}
	return nil
}

// readMark returns the file names a mark lists.
func readMark(path string) (map[string]bool, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", Mark)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	listed := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if l := sc.Text(); l != "" && !strings.HasPrefix(l, "#") {
			listed[l] = true
		}
	}
	return listed, sc.Err()
}
