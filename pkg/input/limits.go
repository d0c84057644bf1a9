package input

import (
	"bytes"
	"fmt"
	"io"
	"os"

	yaml3 "go.yaml.in/yaml/v3"
)

// Limits on what tfgen reads, so that hostile or careless input ends in an
// error instead of exhausting memory.
const (
	// MaxInputBytes is the most tfgen reads from one file or from standard
	// input: a stream of about 25,000 typical jobs.
	MaxInputBytes = 64 << 20
	// MaxDocumentBytes is the most one document may hold, both as
	// written (its bytes, measured before it is parsed, so that parsing
	// costs no more than this) and once its YAML aliases are expanded,
	// measured as JSON. The API server takes no object of even a third
	// of it.
	MaxDocumentBytes = 8 << 20
)

// LimitError is input over one of the limits above.
type LimitError struct {
	// File is the input (Stdin for standard input); Line the line of the
	// document over the limit, 0 for a whole input.
	File string
	Line int
	// Msg says what is over which limit.
	Msg string
}

// Error prints "FILE[:LINE]: MSG".
func (e *LimitError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", DisplayName(e.File), e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", DisplayName(e.File), e.Msg)
}

// readAll reads r to its end, or fails once it passes MaxInputBytes.
func readAll(file string, r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxInputBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxInputBytes {
		return nil, tooLarge(file)
	}
	return data, nil
}

// smallFile is the size up to which a regular file is read whole.
const smallFile = 1 << 20

// capped returns a reader of r that fails with a *LimitError once more
// than MaxInputBytes have been read.
func capped(file string, r io.Reader) *capReader {
	return &capReader{file: file, r: r, left: MaxInputBytes}
}

type capReader struct {
	file string
	r    io.Reader
	left int64
	// small is a regular file of at most smallFile bytes.
	small bool
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, tooLarge(c.file)
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	if c.left -= int64(n); c.left < 0 {
		return 0, tooLarge(c.file)
	}
	return n, err
}

func tooLarge(file string) error {
	return &LimitError{File: file, Msg: fmt.Sprintf("input is larger than %d MiB, the most tfgen reads from one file or standard input; split it into several files", MaxInputBytes>>20)}
}

func documentTooLarge(file string, line int, what string) error {
	if line == 0 {
		return &LimitError{File: file, Msg: fmt.Sprintf("the file %s more than %d MiB, the most tfgen reads in one document", what, MaxDocumentBytes>>20)}
	}
	return &LimitError{File: file, Line: line, Msg: fmt.Sprintf("the document %s more than %d MiB, the most tfgen reads in one document", what, MaxDocumentBytes>>20)}
}

// checkExpanded refuses a document that is, or expands to, more than
// MaxDocumentBytes. Aliases are measured on the parsed nodes, where an alias
// is a pointer to its anchor, so a few kilobytes that expand to gigabytes
// (the YAML "billion laughs") cost no more than their own size here.
func (d Document) checkExpanded() error {
	if len(d.Raw) > MaxDocumentBytes {
		return documentTooLarge(d.File, d.Line, "holds")
	}
	// Without both an anchor and an alias nothing expands.
	if bytes.IndexByte(d.Raw, '&') < 0 || bytes.IndexByte(d.Raw, '*') < 0 {
		return nil
	}
	var n yaml3.Node
	if err := yaml3.Unmarshal(d.Raw, &n); err != nil {
		return nil // the converter reports the syntax error
	}
	m := measure{seen: map[*yaml3.Node]int64{}}
	if m.size(&n) > MaxDocumentBytes {
		return documentTooLarge(d.File, d.Line, "expands to")
	}
	return nil
}

// measure estimates the JSON size of YAML nodes with their aliases
// expanded, stopping at just over MaxDocumentBytes.
type measure struct {
	seen map[*yaml3.Node]int64 // sizes of anchored nodes
}

func (m *measure) size(n *yaml3.Node) int64 {
	if n == nil {
		return 0
	}
	if s, ok := m.seen[n]; ok {
		return s
	}
	var s int64
	switch n.Kind {
	case yaml3.AliasNode:
		s = m.size(n.Alias)
	case yaml3.ScalarNode:
		s = int64(len(n.Value)) + 2
	default: // documents, mappings, sequences
		s = 2
		for _, c := range n.Content {
			if s += m.size(c) + 1; s > MaxDocumentBytes {
				break
			}
		}
	}
	s = min(s, MaxDocumentBytes+1)
	if n.Anchor != "" {
		m.seen[n] = s
	}
	return s
}

// ReadConfig reads a configuration file given by a flag (YAML or JSON),
// with the limits of a document, and returns it as JSON.
func ReadConfig(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxDocumentBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxDocumentBytes {
		return nil, documentTooLarge(path, 0, "holds")
	}
	return Document{File: path, Line: 1, Raw: bytes.TrimPrefix(data, bom)}.JSON()
}
