package input

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"iter"
)

var bom = []byte("\xef\xbb\xbf")

// Split splits the contents of file into its non-empty documents: a JSON
// stream when data is one (it starts with '{' or '['), else a YAML stream
// separated by "---" lines. Every document is parsed once, so a malformed
// one is reported here, as a *SyntaxError naming file and line; the
// well-formed documents are returned with the joined errors.
func Split(file string, data []byte) ([]Document, error) {
	var docs []Document
	var errs []error
	for d, err := range documents(file, data) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		docs = append(docs, d)
	}
	return docs, errors.Join(errs...)
}

// documents yields the documents of Split one at a time, each parsed when
// it is reached, with an error for each malformed one.
func documents(file string, data []byte) iter.Seq2[Document, error] {
	return func(yield func(Document, error) bool) {
		data = bytes.TrimPrefix(data, bom)
		if t := bytes.TrimSpace(data); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
			if docs, err := splitJSON(file, data); err == nil {
				for _, d := range docs {
					if !yield(d, nil) {
						return
					}
				}
				return
			}
		}
		yamlDocuments(file, sliceLines(data), yield)
	}
}

// streamDocuments yields the documents of r as documents does, reading a
// YAML stream a line at a time, so that only the document being read is in
// memory. A stream that starts like JSON is read whole first: it may turn
// out to be YAML in flow style.
func streamDocuments(file string, r io.Reader) iter.Seq2[Document, error] {
	return func(yield func(Document, error) bool) {
		br := bufio.NewReaderSize(r, 64<<10)
		if b, _ := br.Peek(len(bom)); bytes.Equal(b, bom) {
			br.Discard(len(bom))
		}
		if jsonStart(br) {
			whole(documents)(file, br)(yield)
			return
		}
		yamlDocuments(file, readLines(br), yield)
	}
}

// jsonStart reports whether the first character after white space in br
// opens a JSON object or array. It waits for no more input than that
// character (or the end of br's buffer).
func jsonStart(br *bufio.Reader) bool {
	for n := 1; n <= br.Size(); n++ {
		b, err := br.Peek(n)
		if len(b) < n || err != nil {
			return false
		}
		if c := b[n-1]; !isSpace(c) {
			return c == '{' || c == '['
		}
	}
	return false
}

// lines returns the next line of a stream, its "\n" included, or io.EOF.
type lines func() ([]byte, error)

// sliceLines returns the lines of data.
func sliceLines(data []byte) lines {
	return func() ([]byte, error) {
		if len(data) == 0 {
			return nil, io.EOF
		}
		n := bytes.IndexByte(data, '\n') + 1
		if n == 0 {
			n = len(data)
		}
		l := data[:n]
		data = data[n:]
		return l, nil
	}
}

// errLongLine stands for a line longer than a document may be, which
// readLines drops.
var errLongLine = errors.New("line too long")

// readLines returns the lines of br; a line longer than MaxDocumentBytes
// is read to its end and dropped, and errLongLine returned in its place.
func readLines(br *bufio.Reader) lines {
	var long []byte
	return func() ([]byte, error) {
		l, err := br.ReadSlice('\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			if err == io.EOF && len(l) > 0 {
				err = nil
			}
			return l, err
		}
		long = append(long[:0], l...)
		for errors.Is(err, bufio.ErrBufferFull) {
			l, err = br.ReadSlice('\n')
			if len(long) <= MaxDocumentBytes {
				long = append(long, l...)
			}
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		if len(long) > MaxDocumentBytes {
			long = nil
			return nil, errLongLine
		}
		return long, nil
	}
}

// yamlDocuments parses and yields each document of a YAML stream until
// yield returns false; empty documents are skipped.
func yamlDocuments(file string, next lines, yield func(Document, error) bool) {
	index := 0
	err := eachChunk(next, func(c chunk) bool {
		if c.tooLarge {
			return yield(Document{}, documentTooLarge(file, c.line, "holds"))
		}
		if onlyBlank(c.text) {
			return true // nothing but comments: no need to parse
		}
		d := Document{File: file, Index: index, Line: c.line, Raw: c.text}
		p, err := d.parse()
		if err != nil {
			return yield(Document{}, err)
		}
		if isNull(p.json) {
			return true
		}
		d.parsed = p
		index++
		return yield(d, nil)
	})
	if err != nil {
		yield(Document{}, err)
	}
}

type chunk struct {
	line int
	text []byte
	// tooLarge is set, and text dropped, past MaxDocumentBytes.
	tooLarge bool
}

// add appends raw to c's text, or drops it when the document is too large.
func (c *chunk) add(raw []byte) {
	if c.tooLarge {
		return
	}
	if len(c.text)+len(raw) > MaxDocumentBytes {
		c.tooLarge, c.text = true, nil
		return
	}
	c.text = append(c.text, raw...)
}

// eachChunk cuts a YAML stream at its document markers, calling f with
// each piece until it returns false, and returns the stream's read error.
// A "---" line starts a document (text after the marker stays in it, the
// marker itself becomes spaces so columns and line numbers hold); a "..."
// line ends one. Directive lines (%YAML, %TAG) are blanked: they carry
// nothing tfgen uses.
func eachChunk(next lines, f func(chunk) bool) error {
	cur := chunk{line: 1}
	line := 0
	for {
		raw, err := next()
		if err == io.EOF {
			break
		}
		line++
		if err == errLongLine {
			cur.tooLarge, cur.text = true, nil
			continue
		}
		if err != nil {
			return err
		}
		body := bytes.TrimRight(raw, "\r\n")
		switch {
		case isMarker(body, "---"):
			if !f(cur) {
				return nil
			}
			cur = chunk{line: line}
			cur.add(bytes.Repeat([]byte(" "), 3))
			cur.add(raw[3:])
			continue
		case isMarker(body, "..."):
			if !f(cur) {
				return nil
			}
			cur = chunk{line: line, text: []byte("\n")}
			continue
		case bytes.HasPrefix(body, []byte("%")) && onlyBlank(cur.text):
			raw = []byte("\n")
		}
		cur.add(raw)
	}
	f(cur)
	return nil
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
	for len(text) > 0 {
		l := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			l, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		if l = bytes.TrimSpace(l); len(l) > 0 && l[0] != '#' {
			return false
		}
	}
	return true
}

func isNull(j []byte) bool {
	j = bytes.TrimSpace(j)
	return len(j) == 0 || bytes.Equal(j, []byte("null"))
}

// jsonDocuments yields the documents of a JSON file, then the error that
// ended the stream early, if any.
func jsonDocuments(file string, data []byte) iter.Seq2[Document, error] {
	return func(yield func(Document, error) bool) {
		docs, err := splitJSON(file, data)
		for _, d := range docs {
			if !yield(d, nil) {
				return
			}
		}
		if err != nil {
			yield(Document{}, err)
		}
	}
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
			return docs, jsonError(file, data, start, err)
		}
		for start < len(data) && isSpace(data[start]) {
			start++
		}
		if isNull(raw) {
			continue
		}
		if len(raw) > MaxDocumentBytes {
			return docs, documentTooLarge(file, lineAt(data, start), "holds")
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
