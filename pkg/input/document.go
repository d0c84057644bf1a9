package input

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
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
	// Raw is the document's text as written; for a List item, the item as
	// JSON without its server-set fields.
	Raw []byte
	// Item is the position, from 1, of the document among the items of the
	// v1 List it was expanded from (Index and File are the List's); 0 when
	// it was no List item.
	Item int
	// Finished is "Succeeded" or "Failed" when the List item's status (now
	// dropped) said so: the object was a job that had finished.
	Finished string

	// parsed caches what Split learnt parsing the document, so that JSON
	// and DuplicateKeys do not parse it again; nil in documents built by hand.
	parsed *parsed
}

type parsed struct {
	json []byte
	dups error
	// plain is the document as read as plain YAML (manifest.ParsePlain),
	// nil when the full parser read it.
	plain map[string]any
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
	for d, err := range All(context.Background(), paths, stdin) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		docs = append(docs, d)
	}
	return docs, errors.Join(errs...)
}

// ReadPath reads the documents of one PATH argument (see Read).
func ReadPath(path string, stdin io.Reader) ([]Document, error) {
	return Read([]string{path}, stdin)
}

// All yields the documents of paths in the order Read returns them, and an
// error for each unreadable file, malformed document or input over a limit
// (see MaxInputBytes). It reads one file at a time, when the documents
// before it have been consumed, and parses each document as it is reached,
// so memory holds one file's text and one document, however long the
// stream. Reads stop when ctx ends, with its cause, even while standard
// input or a pipe has nothing to give.
func All(ctx context.Context, paths []string, stdin io.Reader) iter.Seq2[Document, error] {
	return func(yield func(Document, error) bool) {
		seenStdin := false
		seen := seenFiles{}
		for _, p := range paths {
			if p == Stdin {
				if seenStdin {
					if !yield(Document{}, errors.New(`"-" (standard input) given more than once`)) {
						return
					}
					continue
				}
				seenStdin = true
			}
			files, err := pathFiles(p)
			if err != nil {
				if !yield(Document{}, err) {
					return
				}
				continue
			}
			for _, f := range files {
				if first, dup := seen.add(f); dup {
					err := fmt.Errorf("%s: the file is given twice (first as %s); every object in it would be rendered twice", DisplayName(f), DisplayName(first))
					if !yield(Document{}, err) {
						return
					}
					continue
				}
				if !readFile(ctx, f, stdin, yield) {
					return
				}
			}
		}
	}
}

// readFile yields the documents of one input file (or standard input)
// until yield returns false, and reports whether to go on.
func readFile(ctx context.Context, file string, stdin io.Reader, yield func(Document, error) bool) bool {
	r, closeFile, err := open(ctx, file, stdin)
	if err != nil {
		return yield(Document{}, err)
	}
	defer closeFile()
	split := streamDocuments
	switch {
	case file != Stdin && strings.EqualFold(filepath.Ext(file), ".json"):
		split = whole(jsonDocuments)
	case r.small:
		split = whole(documents)
	}
	for d, err := range split(file, r) {
		if ctx.Err() != nil {
			yield(Document{}, context.Cause(ctx))
			return false
		}
		if err != nil && file == Stdin && !isInputError(err) {
			err = fmt.Errorf("read standard input: %w", err)
		}
		if err == nil {
			items, ok, err := expandList(d)
			if ok {
				if err != nil {
					items = []Document{{}}
				}
				for _, it := range items {
					if !yield(it, err) {
						return false
					}
				}
				continue
			}
		}
		if !yield(d, err) {
			return false
		}
	}
	return true
}

// whole returns a splitter of a reader that reads it whole, then splits
// the text with split.
func whole(split func(string, []byte) iter.Seq2[Document, error]) func(string, io.Reader) iter.Seq2[Document, error] {
	return func(file string, r io.Reader) iter.Seq2[Document, error] {
		return func(yield func(Document, error) bool) {
			data, err := readAll(file, r)
			if err != nil {
				yield(Document{}, err)
				return
			}
			for d, err := range split(file, data) {
				if !yield(d, err) {
					return
				}
			}
		}
	}
}

// open returns a reader of file, at most MaxInputBytes long, that ends
// with ctx's cause once ctx is done, and the function that closes it.
func open(ctx context.Context, file string, stdin io.Reader) (*capReader, func(), error) {
	if file == Stdin {
		if stdin == nil {
			return nil, nil, errors.New("read standard input: no reader")
		}
		return capped(file, contextReader(ctx, stdin)), func() {}, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	var r io.Reader = f
	switch {
	case info.Mode().IsRegular() && info.Size() > MaxInputBytes:
		f.Close()
		return nil, nil, tooLarge(file)
	case !info.Mode().IsRegular():
		r = contextReader(ctx, f) // a pipe or a device may block
	}
	c := capped(file, r)
	// A small file is read whole and split in memory, as cheap as it gets;
	// a large one is read a document at a time.
	c.small = info.Mode().IsRegular() && info.Size() <= smallFile
	return c, func() { f.Close() }, nil
}

// isInputError reports an error that names its input itself.
func isInputError(err error) bool {
	var le *LimitError
	var se *SyntaxError
	return errors.As(err, &le) || errors.As(err, &se) || errors.Is(err, context.Canceled)
}

// seenFiles are the input files read so far, by absolute path, with the
// path each was first given as.
type seenFiles map[string]string

// add records file and reports the path it was first given as, if it was.
func (fs seenFiles) add(file string) (string, bool) {
	if file == Stdin {
		return "", false
	}
	key, err := filepath.Abs(file)
	if err != nil {
		key = filepath.Clean(file)
	}
	if first, ok := fs[key]; ok {
		return first, true
	}
	fs[key] = file
	return "", false
}

// pathFiles returns the files of one PATH argument: itself, or a
// directory's input files.
func pathFiles(path string) ([]string, error) {
	if path == Stdin {
		return []string{Stdin}, nil
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	return dirFiles(path)
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
