package input

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

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
	// MaxDepth is the deepest the lists and objects of one document may
	// nest, its aliases expanded: the depth to which the YAML and JSON
	// parsers read flow collections. Each level is a recursion in every
	// later stage, so a deeper document would cost stack and time far out
	// of proportion to its size.
	MaxDepth = 10000
	// MaxQuote is the most of one input value that a message quotes (see
	// Quote and Excerpt); MaxMessage the most of a field path or of a
	// problem's detail, either of which may hold input values (see
	// Shorten).
	MaxQuote   = 100
	MaxMessage = 500
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
// MaxDocumentBytes, or whose aliases nest it more than MaxDepth deep.
// Aliases are measured on the parsed nodes, where an alias is a pointer to
// its anchor, so a few kilobytes that expand to gigabytes (the YAML
// "billion laughs") cost no more than their own size here.
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
	m := measure{seen: map[*yaml3.Node]extent{}, open: map[*yaml3.Node]bool{}}
	e := m.extent(&n)
	switch {
	case m.cycle:
		return nil // the converter reports the anchor that contains itself
	case m.deep != nil:
		return tooDeep(d.File, d.Line+m.deep.Line-1, m.deepPath)
	case e.size > MaxDocumentBytes:
		return documentTooLarge(d.File, d.Line, "expands to")
	}
	return nil
}

// measure estimates the JSON size and the depth of YAML nodes with their
// aliases expanded, stopping at just over MaxDocumentBytes, at the first
// node nested more than MaxDepth deep, or at an anchor that contains
// itself.
type measure struct {
	seen map[*yaml3.Node]extent // of anchored nodes
	open map[*yaml3.Node]bool   // anchored nodes being measured
	// path holds the collections around the node being measured, each
	// with the index of its content being measured, level the number of
	// lists and maps among them.
	path  []step
	level int
	// deep is the first node found that lies, or holds a value that lies,
	// more than MaxDepth deep once expanded, at deepPath; cycle is set at
	// an alias of its own anchor.
	deep     *yaml3.Node
	deepPath string
	cycle    bool
}

type extent struct {
	size  int64
	depth int
}

type step struct {
	n *yaml3.Node
	i int
}

func (m *measure) extent(n *yaml3.Node) extent {
	if n == nil || m.deep != nil || m.cycle {
		return extent{}
	}
	if e, ok := m.seen[n]; ok {
		return e
	}
	if m.open[n] {
		m.cycle = true
		return extent{}
	}
	if n.Anchor != "" {
		m.open[n] = true
		defer delete(m.open, n)
	}
	var e extent
	switch n.Kind {
	case yaml3.AliasNode:
		e = m.extent(n.Alias)
	case yaml3.ScalarNode:
		e.size = int64(len(n.Value)) + 2
	default: // documents, mappings, sequences
		e.size = 2
		collection := n.Kind != yaml3.DocumentNode
		if collection {
			m.level++
		}
		for i, c := range n.Content {
			// A merge key ("<<") puts the members of the maps it
			// names into this one, levels up.
			up := 0
			if n.Kind == yaml3.MappingNode && i%2 == 1 && n.Content[i-1].ShortTag() == "!!merge" {
				up = mergeLevels(c)
			}
			m.path = append(m.path, step{n, i})
			m.level -= up
			ce := m.extent(c)
			m.level += up
			m.path = m.path[:len(m.path)-1]
			ce.depth = max(0, ce.depth-up)
			e.depth = max(e.depth, ce.depth)
			if e.size += ce.size + 1; e.size > MaxDocumentBytes || m.deep != nil || m.cycle {
				break
			}
		}
		if collection {
			m.level--
			e.depth++
		}
	}
	e.size = min(e.size, MaxDocumentBytes+1)
	if m.level+e.depth > MaxDepth && m.deep == nil {
		m.deep, m.deepPath = n, m.pathString()
	}
	if n.Anchor != "" {
		m.seen[n] = e
	}
	return e
}

// mergeLevels returns how many levels of the value of a merge key ("<<")
// its map does not take: one for a map, two for a list of maps.
func mergeLevels(v *yaml3.Node) int {
	for v.Kind == yaml3.AliasNode && v.Alias != nil {
		v = v.Alias
	}
	if v.Kind == yaml3.SequenceNode {
		return 2
	}
	return 1
}

// pathString returns m.path as a field path: spec.containers[0].args.
func (m *measure) pathString() string {
	var b strings.Builder
	for _, s := range m.path {
		if b.Len() > maxPath {
			break
		}
		switch s.n.Kind {
		case yaml3.SequenceNode:
			fmt.Fprintf(&b, "[%d]", s.i)
		case yaml3.MappingNode:
			writeKey(&b, s.n.Content[s.i&^1].Value)
		}
	}
	return cut(b.String(), maxPath)
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
