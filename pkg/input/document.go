package input

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Stdin is the PATH argument, and the Document.File, of standard input.
const Stdin = "-"

// Document is one YAML or JSON document of an input file.
type Document struct {
	// File is the path the document was read from; Stdin for standard input.
	File string
	// Index is the document's position among the non-empty documents of its file, from 0.
	Index int
	// Line is the line of File on which the document starts, from 1.
	Line int
	// Raw is the document's text as written.
	Raw []byte

	// parsed caches what Split learnt parsing the document, so that JSON
	// and DuplicateKeys do not parse it again; nil in documents built by hand.
	parsed *parsed
}

type parsed struct {
	json []byte
	dups error
}

// Name returns the file as it appears in messages: "<stdin>" for standard input.
func (d Document) Name() string { return DisplayName(d.File) }

// DisplayName returns file as it appears in messages.
func DisplayName(file string) string {
	if file == Stdin {
		return "<stdin>"
	}
	return file
}

// extensions are the file names read from a directory.
var extensions = map[string]bool{".yaml": true, ".yml": true, ".json": true}

// Read reads every document of paths in order. A path is a file, a directory
// (its .yaml, .yml and .json files, sorted by name, not recursively) or "-"
// for stdin, which may be given once. It reports every unreadable file and
// every malformed document at once, joined with errors.Join.
func Read(paths []string, stdin io.Reader) ([]Document, error) {
	var docs []Document
	var errs []error
	seenStdin := false
	for _, p := range paths {
		if p == Stdin {
			if seenStdin {
				errs = append(errs, errors.New(`"-" (standard input) given more than once`))
				continue
			}
			seenStdin = true
		}
		d, err := ReadPath(p, stdin)
		docs = append(docs, d...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return docs, errors.Join(errs...)
}

// ReadPath reads the documents of one PATH argument (see Read).
func ReadPath(path string, stdin io.Reader) ([]Document, error) {
	if path == Stdin {
		if stdin == nil {
			return nil, errors.New("read standard input: no reader")
		}
		data, err := io.ReadAll(stdin)
		if err != nil {
			return nil, fmt.Errorf("read standard input: %w", err)
		}
		return Split(Stdin, data)
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return readFile(path)
	}
	files, err := dirFiles(path)
	if err != nil {
		return nil, err
	}
	var docs []Document
	var errs []error
	for _, f := range files {
		d, err := readFile(f)
		docs = append(docs, d...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return docs, errors.Join(errs...)
}

// dirFiles lists the input files of directory dir, sorted by name.
func dirFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") || !extensions[strings.ToLower(filepath.Ext(e.Name()))] {
			continue
		}
		files = append(files, filepath.Join(dir, e.Name()))
	}
	sort.Strings(files)
	return files, nil
}

func readFile(path string) ([]Document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(filepath.Ext(path), ".json") {
		return splitJSON(path, data)
	}
	return Split(path, data)
}
