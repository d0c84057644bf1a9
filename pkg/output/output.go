package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/tfgen/tfgen/pkg/manifest"
)

// Format is an output format.
type Format string

// Formats.
const (
	YAML Format = "yaml"
	JSON Format = "json"
)

// Item is one document to write.
type Item struct {
	// Object is the document as data; it names the file in a directory and
	// is what JSON output writes.
	Object manifest.Object
	// Raw, when set, is written in YAML output instead of Object: a
	// pass-through document goes out exactly as it came in.
	Raw []byte
}

// Writer takes items one at a time and writes all of them or none: nothing
// reaches its destination before Commit. Discard drops what was added; it
// does nothing after a Commit, so that it can be deferred.
type Writer interface {
	Add(Item) error
	Commit() error
	Discard()
}

var (
	_ Writer = (*StreamWriter)(nil)
	_ Writer = (*DirWriter)(nil)
)

// Write writes items to w in format f.
func Write(w io.Writer, items []Item, f Format) error {
	s, err := NewStreamWriter(w, f)
	if err != nil {
		return err
	}
	defer s.Discard()
	for _, it := range items {
		if err := s.Add(it); err != nil {
			return err
		}
	}
	return s.Commit()
}

// Stream returns items as a YAML stream, each document after a "---" line.
func Stream(items []Item) ([]byte, error) {
	var buf bytes.Buffer
	err := Write(&buf, items, YAML)
	return buf.Bytes(), err
}

// List returns items as an indented JSON v1 List.
func List(items []Item) ([]byte, error) {
	var buf bytes.Buffer
	err := Write(&buf, items, JSON)
	return buf.Bytes(), err
}

// StreamWriter writes a YAML stream ("---" before each document) or an
// indented JSON v1 List. Until Commit the output is kept aside, in memory
// and past a few megabytes in an unlinked temporary file, so that memory
// stays flat however many items there are.
type StreamWriter struct {
	w       io.Writer
	format  Format
	spool   spool
	n       int
	scratch bytes.Buffer
}

// NewStreamWriter returns a writer of format f to w.
func NewStreamWriter(w io.Writer, f Format) (*StreamWriter, error) {
	switch f {
	case YAML, JSON:
	case "":
		f = YAML
	default:
		return nil, fmt.Errorf("unknown output format %q (want yaml or json)", f)
	}
	return &StreamWriter{w: w, format: f}, nil
}

// The JSON List around the items, as encoding/json indents it.
const (
	listHead = "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": "
	listTail = "\n}\n"
)

// Add implements Writer.
func (s *StreamWriter) Add(it Item) error {
	b := &s.scratch
	b.Reset()
	switch s.format {
	case YAML:
		b.WriteString("---\n")
		if err := appendYAML(b, it); err != nil {
			return err
		}
	case JSON:
		if s.n == 0 {
			b.WriteString(listHead + "[\n    ")
		} else {
			b.WriteString(",\n    ")
		}
		enc := json.NewEncoder(b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("    ", "  ")
		if err := enc.Encode(it.Object); err != nil {
			return fmt.Errorf("write JSON: %w", err)
		}
		b.Truncate(b.Len() - 1) // Encode's newline
	}
	s.n++
	return s.spool.write(b.Bytes())
}

// Commit implements Writer: it writes everything added to the destination.
func (s *StreamWriter) Commit() error {
	defer s.Discard()
	if s.format == JSON {
		tail := "\n  ]" + listTail
		if s.n == 0 {
			tail = listHead + "[]" + listTail
		}
		if err := s.spool.write([]byte(tail)); err != nil {
			return err
		}
	}
	return s.spool.copyTo(s.w)
}

// Discard implements Writer.
func (s *StreamWriter) Discard() { s.spool.close() }

func appendYAML(buf *bytes.Buffer, it Item) error {
	if it.Raw != nil {
		buf.Write(it.Raw)
		if len(it.Raw) > 0 && it.Raw[len(it.Raw)-1] != '\n' {
			buf.WriteByte('\n')
		}
		return nil
	}
	if err := manifest.AppendYAML(buf, it.Object); err != nil {
		return fmt.Errorf("write %s: %w", it.Object, err)
	}
	return nil
}
