package input

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	yaml3 "go.yaml.in/yaml/v3"
)

// A document deeper than MaxDepth is refused before anything recurses
// through it. Each parser is held to the limit in its own way:
//
//   - encoding/json refuses JSON nested more than 10,000 deep, and so does
//     the YAML scanner a flow collection or an indentation;
//   - the fast path for plain YAML (manifest.ParsePlain) reads one-line
//     JSON recursively, without a limit, so it is not given a document
//     with a line that could nest that deep (see deepLine);
//   - aliases multiply depth as they multiply size, so checkExpanded
//     measures both before the YAML is expanded;
//   - a document can still nest deeper than any one parser counts (a
//     flow collection inside an indented one), so the JSON it becomes is
//     measured last (see jsonTooDeep).

// tooDeep is the error of a document nested more than MaxDepth deep, at
// path (in the document's own field names, "" when not known).
func tooDeep(file string, line int, path string) error {
	msg := fmt.Sprintf("the document nests lists and objects more than %d deep, the most tfgen reads", MaxDepth)
	if path != "" {
		msg = fmt.Sprintf("%s: lists and objects nested more than %d deep, the most tfgen reads", path, MaxDepth)
	}
	return &LimitError{File: file, Line: line, Msg: msg}
}

// isDepthError reports a parser's own refusal of a document nested deeper
// than it reads: encoding/json says "invalid character '[' exceeded max
// depth", the YAML parsers "exceeded max depth of 10000".
func isDepthError(msg string) bool {
	return strings.Contains(msg, "exceeded max depth")
}

// deepLine reports whether a line of raw holds MaxDepth or more '[' and
// '{', and so could hold JSON nested that deep: one-line JSON takes one of
// them per level.
func deepLine(raw []byte) bool {
	if bytes.Count(raw, []byte("["))+bytes.Count(raw, []byte("{")) < MaxDepth {
		return false // the common case, without looking at lines
	}
	for line := range bytes.Lines(raw) {
		if bytes.Count(line, []byte("["))+bytes.Count(line, []byte("{")) >= MaxDepth {
			return true
		}
	}
	return false
}

// jsonTooDeep returns the path of the first value of JSON j that lies
// more than MaxDepth lists and objects deep, and true; or false when there
// is none. Keys are read as JSON strings or, failing that, as the text
// before their ':' (YAML in flow style), so that it names a place in a
// document the parsers refused too.
func jsonTooDeep(j []byte) (string, bool) {
	return jsonTooDeepBelow("", j)
}

// jsonTooDeepBelow is jsonTooDeep for JSON j found at path prefix.
func jsonTooDeepBelow(prefix string, j []byte) (string, bool) {
	if len(j) <= 2*MaxDepth {
		return "", false // each level takes two bytes at least
	}
	var stack []frame
	for i := 0; i < len(j); i++ {
		c := j[i]
		if c == '[' || c == '{' {
			if len(stack) == MaxDepth {
				return pathOf(prefix, stack), true
			}
			stack = append(stack, frame{object: c == '{', wantKey: c == '{', keyStart: i + 1})
			continue
		}
		if len(stack) == 0 {
			continue
		}
		top := &stack[len(stack)-1]
		switch c {
		case '"':
			end := stringEnd(j, i)
			if top.wantKey {
				top.key, top.wantKey = j[i:end], false
			}
			i = end - 1
		case ':':
			if top.wantKey {
				top.key, top.wantKey = bytes.TrimSpace(j[top.keyStart:i]), false
			}
		case ']', '}':
			stack = stack[:len(stack)-1]
		case ',':
			top.index++
			top.wantKey, top.keyStart = top.object, i+1
		}
	}
	return "", false
}

// frame is a list or an object being read by jsonTooDeep.
type frame struct {
	object bool
	// index counts the items or members read so far; key is the object's
	// current key, as JSON, and wantKey is true until it is read.
	index   int
	key     []byte
	wantKey bool
	// keyStart is where the text of the key (the current member) starts.
	keyStart int
}

// stringEnd returns the index just past the JSON string that starts at
// j[i].
func stringEnd(j []byte, i int) int {
	for i++; i < len(j); i++ {
		switch j[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(j)
}

// maxPath is the most of a path that messages print.
const maxPath = 100

// pathOf returns where the innermost frame of stack is, below path
// prefix, as a field path (spec.containers[0].args), cut after maxPath
// bytes.
func pathOf(prefix string, stack []frame) string {
	var b strings.Builder
	b.WriteString(prefix)
	for _, f := range stack {
		if b.Len() > maxPath {
			break
		}
		if !f.object {
			fmt.Fprintf(&b, "[%d]", f.index)
			continue
		}
		key := string(f.key)
		if len(f.key) > 0 && f.key[0] == '"' && json.Unmarshal(f.key, &key) != nil {
			key = string(f.key)
		}
		writeKey(&b, key)
	}
	return cut(b.String(), maxPath)
}

// writeKey appends key to the path in b: ".key", or "key" to start it, or
// ["key"] when it holds more than letters, digits and "-_/".
func writeKey(b *strings.Builder, key string) {
	plain := key != "" && !strings.ContainsFunc(key, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_/", r))
	})
	switch {
	case !plain:
		b.WriteString("[" + Quote(key) + "]")
	case b.Len() > 0:
		b.WriteString("." + key)
	default:
		b.WriteString(key)
	}
}

// cut returns s, or its first n bytes (not splitting a UTF-8 sequence)
// followed by "…".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return prefix(s, n) + "…"
}

// maxPathPrefix is the most of a document read again to name the field
// that the YAML parser found nested too deep: above it the name is left
// out, as it would cost as much again as the parse.
const maxPathPrefix = 64 << 10

// flowPath returns the path of the flow collection (YAML in flow style or
// JSON) that the YAML parser found nested too deep on line (of raw, from
// 1), or "" when it cannot be told. The document up to the collection's
// start, with null in its place, names the field that holds it; the
// collection itself, read as JSON, the place within.
func flowPath(raw []byte, line int) string {
	if line < 1 {
		return ""
	}
	start := 0
	for n := 1; n < line; n++ {
		i := bytes.IndexByte(raw[start:], '\n')
		if i < 0 {
			return ""
		}
		start += i + 1
	}
	text := raw[start:]
	if i := bytes.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	open := bytes.IndexAny(text, "[{")
	if open < 0 || start+open > maxPathPrefix {
		return ""
	}
	doc := append(bytes.Clone(raw[:start+open]), "null"...)
	field, ok := lastPath(doc)
	if !ok {
		return ""
	}
	path, _ := jsonTooDeepBelow(field, text[open:])
	if path == "" {
		path = field
	}
	return path
}

// lastPath returns the path of the last node of YAML document doc, when
// it is a null scalar.
func lastPath(doc []byte) (string, bool) {
	var root yaml3.Node
	if yaml3.Unmarshal(doc, &root) != nil || len(root.Content) != 1 {
		return "", false
	}
	var b strings.Builder
	n := root.Content[0]
	for len(n.Content) > 0 {
		last := len(n.Content) - 1
		switch n.Kind {
		case yaml3.SequenceNode:
			fmt.Fprintf(&b, "[%d]", last)
		case yaml3.MappingNode:
			writeKey(&b, n.Content[last&^1].Value)
		default:
			return "", false
		}
		n = n.Content[last]
	}
	return b.String(), n.Kind == yaml3.ScalarNode && n.Value == "null"
}
