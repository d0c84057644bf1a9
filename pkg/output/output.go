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

// Write writes items to w in format f.
func Write(w io.Writer, items []Item, f Format) error {
	var b []byte
	var err error
	switch f {
	case YAML, "":
		b, err = Stream(items)
	case JSON:
		b, err = List(items)
	default:
		return fmt.Errorf("unknown output format %q (want yaml or json)", f)
	}
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Stream returns items as a YAML stream, each document after a "---" line.
func Stream(items []Item) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(items) * 1500) // rendered objects average about 1.4 kB

	for _, it := range items {
		buf.WriteString("---\n")
		if err := appendYAML(&buf, it); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

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

// List returns items as an indented JSON v1 List.
func List(items []Item) ([]byte, error) {
	objs := make([]manifest.Object, len(items))
	for i, it := range items {
		objs[i] = it.Object
	}
	list := struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Items      []manifest.Object `json:"items"`
	}{"v1", "List", objs}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(list); err != nil {
		return nil, fmt.Errorf("write JSON: %w", err)
	}
	return buf.Bytes(), nil
}
