package input

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

var bom = []byte("\xef\xbb\xbf")

// Split splits the contents of file into its non-empty documents: a JSON
// stream when data is one (it starts with '{' or '['), else a YAML stream
// separated by "---" lines. Every document is parsed once, so a malformed
// one is reported here, as a *SyntaxError naming file and line; the
// well-formed documents are returned with the joined errors.
func Split(file string, data []byte) ([]Document, error) {
	data = bytes.TrimPrefix(data, bom)
	if t := bytes.TrimSpace(data); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		if docs, err := splitJSON(file, data); err == nil {
			return docs, nil
		}
	}
	var docs []Document
	var errs []error
	for _, c := range chunks(data) {
		d := Document{File: file, Index: len(docs), Line: c.line, Raw: c.text}
		p, err := d.parse()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if isNull(p.json) {
			continue
		}
		d.parsed = p
		docs = append(docs, d)
	}
	return docs, errors.Join(errs...)
}

type chunk struct {
	line int
	text []byte
}

// chunks cuts a YAML stream at its document markers. A "---" line starts a
// document (text after the marker stays in it, the marker itself becomes
// spaces so columns and line numbers hold); a "..." line ends one. Directive
// lines (%YAML, %TAG) are blanked: they carry nothing tfgen uses.
func chunks(data []byte) []chunk {
	var out []chunk
	cur := chunk{line: 1}
	line := 0
	for len(data) > 0 {
		line++
		n := bytes.IndexByte(data, '\n') + 1
		if n == 0 {
			n = len(data)
		}
		raw := data[:n]
		data = data[n:]
		body := bytes.TrimRight(raw, "\r\n")
		switch {
		case isMarker(body, "---"):
			out = append(out, cur)
			rest := append(bytes.Repeat([]byte(" "), 3), raw[3:]...)
			cur = chunk{line: line, text: rest}
			continue
		case isMarker(body, "..."):
			out = append(out, cur)
			cur = chunk{line: line, text: []byte("\n")}
			continue
		case bytes.HasPrefix(body, []byte("%")) && onlyBlank(cur.text):
			raw = []byte("\n")
		}
		cur.text = append(cur.text, raw...)
	}
	return append(out, cur)
}

// isMarker reports whether line is the document marker m, alone or followed
// by white space.
func isMarker(line []byte, m string) bool {
	if !bytes.HasPrefix(line, []byte(m)) {
		return false
	}
	rest := line[len(m):]
	return len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t'
}

// onlyBlank reports whether text holds only white space and comments.
func onlyBlank(text []byte) bool {
	for _, l := range bytes.Split(text, []byte("\n")) {
		l = bytes.TrimSpace(l)
		if len(l) > 0 && l[0] != '#' {
			return false
		}
	}
	return true
}

func isNull(j []byte) bool {
	j = bytes.TrimSpace(j)
	return len(j) == 0 || bytes.Equal(j, []byte("null"))
}

// splitJSON splits a stream of JSON values; null values are skipped.
func splitJSON(file string, data []byte) ([]Document, error) {
	data = bytes.TrimPrefix(data, bom)
	dec := json.NewDecoder(bytes.NewReader(data))
	var docs []Document
	for {
		start := int(dec.InputOffset())
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return docs, nil
		}
		if err != nil {
			return docs, jsonError(file, data, err)
		}
		for start < len(data) && isSpace(data[start]) {
			start++
		}
		if isNull(raw) {
			continue
		}
		docs = append(docs, Document{File: file, Index: len(docs), Line: lineAt(data, start), Raw: raw, parsed: &parsed{json: raw}})
	}
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }

// lineAt returns the line, from 1, of byte offset off of data.
func lineAt(data []byte, off int) int {
	if off > len(data) {
		off = len(data)
	}
	return 1 + bytes.Count(data[:off], []byte("\n"))
}
