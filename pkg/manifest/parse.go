package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"

	"sigs.k8s.io/yaml"
)

// SplitDocuments splits a YAML stream at "---" lines and returns the
// documents that hold more than blank lines and comments.
func SplitDocuments(data []byte) [][]byte {
	var docs [][]byte
	start := 0
	for pos := 0; pos <= len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += pos
		}
		if isSeparator(data[pos:end]) {
			docs = appendDoc(docs, data[start:pos])
			start = end + 1
		}
		pos = end + 1
	}
	if start < len(data) {
		docs = appendDoc(docs, data[start:])
	}
	return docs
}

func isSeparator(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("---")) {
		return false
	}
	rest := bytes.TrimRight(line[3:], " \t\r")
	if len(rest) == 0 {
		return true
	}
	if rest[0] != ' ' && rest[0] != '\t' {
		return false
	}
	return bytes.TrimLeft(rest, " \t")[0] == '#'
}

func appendDoc(docs [][]byte, doc []byte) [][]byte {
	if isEmpty(doc) {
		return docs
	}
	return append(docs, doc)
}

// isEmpty reports whether doc has nothing but blank lines and comments.
func isEmpty(doc []byte) bool {
	for _, line := range bytes.Split(doc, []byte("\n")) {
		t := bytes.TrimSpace(line)
		if len(t) > 0 && t[0] != '#' {
			return false
		}
	}
	return true
}

// Parse reads one YAML (or JSON) document holding a mapping.
func Parse(doc []byte) (Object, error) {
	if m, ok := parseFast(doc); ok {
		return m, nil
	}
	return parseSlow(doc)
}

// parseSlow parses with sigs.k8s.io/yaml, as Helm does.
func parseSlow(doc []byte) (Object, error) {
	j, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(j))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if v == nil {
		return nil, fmt.Errorf("empty document")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("document is not a mapping")
	}
	if _, err := Normalize(m); err != nil {
		return nil, err
	}
	return m, nil
}
