package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// AppendYAML appends v as a YAML document (no "---") to buf. v holds plain
// data: maps with string keys, slices, strings, bools, nil and numbers.
// Map keys come out sorted, so the same data gives the same bytes.
func AppendYAML(buf *bytes.Buffer, v any) error {
	e := emitter{buf: buf}
	switch t := v.(type) {
	case map[string]any, Object:
		if e.mapLen(t) > 0 {
			return e.mapping(t, 0)
		}
	case []any:
		if len(t) > 0 {
			return e.sequence(t, 0)
		}
	}
	if err := e.scalar(v); err != nil {
		return err
	}
	buf.WriteByte('\n')
	return nil
}

// MarshalYAML returns v as a YAML document.
func MarshalYAML(v any) ([]byte, error) {
	var buf bytes.Buffer
	err := AppendYAML(&buf, v)
	return buf.Bytes(), err
}

type emitter struct{ buf *bytes.Buffer }

func asMap(v any) (map[string]any, bool) {
	switch t := v.(type) {
	case map[string]any:
		return t, true
	case Object:
		return t, true
	}
	return nil, false
}

func (e emitter) mapLen(v any) int {
	m, _ := asMap(v)
	return len(m)
}

const spaces = "                                                                "

func (e emitter) indent(n int) {
	for n > len(spaces) {
		e.buf.WriteString(spaces)
		n -= len(spaces)
	}
	e.buf.WriteString(spaces[:n])
}

// mapping writes m's keys at indent; the first key continues the current line
// when the caller has already written the indentation (sequence items).
func (e emitter) mapping(v any, indent int) error {
	m, _ := asMap(v)
	var buf [32]string
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		if i > 0 {
			e.indent(indent)
		}
		e.key(k, indent)
		if err := e.value(m[k], indent); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	return nil
}

// value writes what follows "key:" for a value at the key's indent.
func (e emitter) value(v any, indent int) error {
	if m, ok := asMap(v); ok && len(m) > 0 {
		e.buf.WriteByte('\n')
		e.indent(indent + 2)
		return e.mapping(m, indent+2)
	}
	if s, ok := v.([]any); ok && len(s) > 0 {
		e.buf.WriteByte('\n')
		e.indent(indent)
		return e.sequence(s, indent)
	}
	e.buf.WriteByte(' ')
	if s, ok := v.(string); ok && literalOK(s) {
		e.literal(s, indent+2)
		return nil
	}
	if err := e.scalar(v); err != nil {
		return err
	}
	e.buf.WriteByte('\n')
	return nil
}

func (e emitter) sequence(s []any, indent int) error {
	for i, item := range s {
		if i > 0 {
			e.indent(indent)
		}
		e.buf.WriteString("- ")
		var err error
		if t, ok := item.([]any); ok && len(t) > 0 {
			err = e.sequence(t, indent+2)
		} else if e.mapLen(item) > 0 {
			err = e.mapping(item, indent+2)
		} else if s, ok := item.(string); ok && literalOK(s) {
			e.literal(s, indent+2)
		} else if err = e.scalar(item); err == nil {
			e.buf.WriteByte('\n')
		}
		if err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
	}
	return nil
}

// key writes "key:"; YAML limits implicit keys to 1024 characters, so a
// longer one is written as an explicit "? key" followed by ":".
func (e emitter) key(k string, indent int) {
	q := quote(k)
	if len(q) > maxKey {
		e.buf.WriteString("? ")
		e.buf.WriteString(q)
		e.buf.WriteByte('\n')
		e.indent(indent)
	} else {
		e.buf.WriteString(q)
	}
	e.buf.WriteByte(':')
}

func (e emitter) scalar(v any) error {
	switch t := v.(type) {
	case nil:
		e.buf.WriteString("null")
	case bool:
		e.buf.WriteString(strconv.FormatBool(t))
	case string:
		e.buf.WriteString(quote(t))
	case int64:
		e.buf.WriteString(strconv.FormatInt(t, 10))
	case int:
		e.buf.WriteString(strconv.Itoa(t))
	case int32:
		e.buf.WriteString(strconv.FormatInt(int64(t), 10))
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) {
			return fmt.Errorf("unsupported number %v", t)
		}
		b, _ := json.Marshal(t)
		e.buf.Write(b)
	case json.Number:
		e.buf.WriteString(t.String())
	case map[string]any, Object:
		e.buf.WriteString("{}")
	case []any:
		e.buf.WriteString("[]")
	default:
		return fmt.Errorf("unsupported type %s", reflect.TypeOf(v))
	}
	return nil
}

// literalOK reports whether s can be written as a literal block scalar
// ("|") and read back unchanged.
func literalOK(s string) bool {
	if !strings.Contains(s, "\n") || s[0] == ' ' || s[0] == '\n' || !utf8.ValidString(s) {
		return false
	}
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if line != "" && strings.TrimLeft(line, " ") == "" {
			return false
		}
		if strings.HasSuffix(line, " ") {
			return false
		}
	}
	for _, r := range s {
		if r != '\n' && !printableRune(r) {
			return false
		}
	}
	return true
}

func (e emitter) literal(s string, indent int) {
	body := strings.TrimRight(s, "\n")
	switch trailing := len(s) - len(body); {
	case trailing == 0:
		e.buf.WriteString("|-\n")
	case trailing == 1:
		e.buf.WriteString("|\n")
	default:
		e.buf.WriteString("|+\n")
	}
	for _, line := range strings.Split(body, "\n") {
		if line != "" {
			e.indent(indent)
			e.buf.WriteString(line)
		}
		e.buf.WriteByte('\n')
	}
	for i := len(body) + 1; i < len(s); i++ {
		e.buf.WriteByte('\n')
	}
}
