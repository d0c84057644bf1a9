package manifest

import (
	"encoding/binary"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The fast path reads the YAML that tfgen's templates write: block
// mappings and sequences whose leaves are plain words, integers, true,
// false, null, or one-line JSON. It answers ok=false, never an error, for
// anything outside that subset, and Parse then uses the full parser. A
// test checks both agree on every rendered example and a fuzz test on
// arbitrary input.

// maxKey is the longest key the fast path accepts: YAML refuses implicit
// keys over 1024 characters, so longer ones go to the full parser to fail
// there as they would under Helm.
const maxKey = 1000

type fline struct {
	indent int
	text   string
}

type fastParser struct {
	lines []fline
	i     int
}

// ParsePlain reads doc when it is in the plain subset of YAML the fast
// path reads (see above), as sigs.k8s.io/yaml would; ok=false otherwise.
func ParsePlain(doc []byte) (m map[string]any, ok bool) { return parseFast(doc) }

func parseFast(doc []byte) (Object, bool) {
	if !printable(doc) {
		return nil, false
	}
	lines, ok := splitLines(doc)
	if !ok || len(lines) == 0 || lines[0].indent != 0 || isItem(lines[0].text) {
		return nil, false
	}
	p := fastParser{lines: lines}
	m, ok := p.mapping(0)
	if !ok || p.i != len(lines) {
		return nil, false
	}
	return m, true
}

func splitLines(data []byte) ([]fline, bool) {
	doc := string(data)
	lines := make([]fline, 0, strings.Count(doc, "\n")+1)
	for len(doc) > 0 {
		var line string
		if i := strings.IndexByte(doc, '\n'); i >= 0 {
			line, doc = doc[:i], doc[i+1:]
		} else {
			line, doc = doc, ""
		}
		n := 0
		for n < len(line) && line[n] == ' ' {
			n++
		}
		text := strings.TrimRight(line[n:], " ")
		if text == "" || text[0] == '#' {
			continue
		}
		if text[0] == '\t' || strings.IndexByte(text, '\t') >= 0 || strings.IndexByte(text, '\r') >= 0 || n == 0 && (text == "---" || text == "...") {
			return nil, false
		}
		lines = append(lines, fline{indent: n, text: text})
	}
	return lines, true
}

func isItem(text string) bool { return text == "-" || strings.HasPrefix(text, "- ") }

func (p *fastParser) mapping(indent int) (map[string]any, bool) {
	m := map[string]any{}
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		if l.indent < indent {
			break
		}
		if l.indent > indent || isItem(l.text) {
			return nil, false
		}
		key, rest, ok := splitKey(l.text)
		if !ok {
			return nil, false
		}
		if _, dup := m[key]; dup {
			return nil, false
		}
		p.i++
		var v any
		if rest != "" {
			v, ok = scalar(rest)
		} else {
			v, ok = p.nested(indent)
		}
		if !ok {
			return nil, false
		}
		m[key] = v
	}
	return m, true
}

// nested reads the block value of a key at indent whose line ended in ':'.
func (p *fastParser) nested(indent int) (any, bool) {
	if p.i >= len(p.lines) {
		return nil, true
	}
	l := p.lines[p.i]
	switch {
	case l.indent > indent && isItem(l.text):
		return p.sequence(l.indent)
	case l.indent > indent:
		return p.mapping(l.indent)
	case l.indent == indent && isItem(l.text):
		return p.sequence(indent)
	}
	return nil, true
}

func (p *fastParser) sequence(indent int) ([]any, bool) {
	s := []any{}
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		if l.indent > indent {
			return nil, false
		}
		if l.indent < indent || !isItem(l.text) {
			break
		}
		var v any
		var ok bool
		switch rest := strings.TrimPrefix(l.text, "-"); {
		case rest == "":
			p.i++
			v, ok = p.nested(indent + 1)
			if ok && v == nil && p.i < len(p.lines) && p.lines[p.i].indent > indent {
				ok = false
			}
		case rest[1] == ' ' || isItem(rest[1:]):
			return nil, false
		case isKeyLine(rest[1:]):
			p.lines[p.i] = fline{indent: indent + 2, text: rest[1:]}
			v, ok = p.mapping(indent + 2)
		default:
			v, ok = scalar(rest[1:])
			p.i++
		}
		if !ok {
			return nil, false
		}
		s = append(s, v)
	}
	return s, true
}

func isKeyLine(text string) bool {
	_, _, ok := splitKey(text)
	return ok
}

// splitKey splits "key: rest" or "key:"; the key is a plain word or a JSON string.
func splitKey(text string) (key, rest string, ok bool) {
	var after string
	if text[0] == '"' {
		end := jsonStringEnd(text)
		if end < 0 {
			return "", "", false
		}
		k, ok := parseJSON(text[:end])
		if key, _ = k.(string); !ok {
			return "", "", false
		}
		after = text[end:]
	} else {
		i := strings.Index(text, ": ")
		if i < 0 {
			if !strings.HasSuffix(text, ":") {
				return "", "", false
			}
			i = len(text) - 1
		}
		key, after = text[:i], text[i:]
		if !plainWord(key) {
			return "", "", false
		}
	}
	if len(key) > maxKey || after != ":" && !strings.HasPrefix(after, ": ") {
		return "", "", false
	}
	return key, strings.TrimLeft(after[1:], " "), true
}

// jsonStringEnd returns the index just past the JSON string at the start of s.
func jsonStringEnd(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

func scalar(s string) (any, bool) {
	switch s[0] {
	case '{', '[', '"':
		return jsonValue(s)
	}
	switch s {
	case "true":
		return true, true
	case "false":
		return false, true
	case "null", "~":
		return nil, true
	}
	if isInt(s) {
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err == nil
	}
	return s, plainWord(s)
}

func isInt(s string) bool {
	if s[0] == '-' {
		s = s[1:]
	}
	if s == "" || s[0] == '0' && len(s) > 1 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// plainWord reports whether s reads as the same string under YAML 1.1 and
// 1.2: it starts with a letter or '/', holds only [A-Za-z0-9_./:@+=-], does
// not end in ':' and is not one of YAML 1.1's boolean or null words.
func plainWord(s string) bool {
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		return quantityWord(s)
	}
	if s == "" || !isLetter(s[0]) && s[0] != '/' || s[len(s)-1] == ':' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isLetter(c) && (c < '0' || c > '9') && !strings.ContainsRune("_./:@+=-", rune(c)) {
			return false
		}
	}
	return !yaml11Special(s)
}

// quantityWord reports whether s, starting with a digit, is a string
// under YAML 1.1 and 1.2, like the quantities "2Gi" and "1.5G": only
// letters, digits and dots, none of the b, o and x of 0b, 0o and 0x (after
// which letters are digits), and a letter other than an exponent's e.
// Integers, floats and timestamps need a sign, '-', ':', '_' or only such
// letters.
func quantityWord(s string) bool {
	letter := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9', c == '.':
		case strings.IndexByte("bBoOxX", c) >= 0:
			return false
		case isLetter(c):
			letter = letter || c != 'e' && c != 'E'
		default:
			return false
		}
	}
	return letter
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// yaml11Special reports the words YAML 1.1 reads as booleans or null, in
// any case.
func yaml11Special(s string) bool {
	if len(s) > 5 {
		return false
	}
	var lower [5]byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return false // no other letter lowers to one of these words' letters
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	switch string(lower[:len(s)]) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
		return true
	}
	return false
}

func jsonValue(s string) (any, bool) { return parseJSON(s) }

// printable reports whether doc is valid UTF-8 made of characters YAML
// allows (tabs and newlines included, carriage returns not).
func printable(doc []byte) bool {
	for i := 0; i < len(doc); {
		// Eight ASCII bytes at a time, none below 0x20 nor 0x7f.
		if i+8 <= len(doc) {
			w := binary.LittleEndian.Uint64(doc[i:])
			x := w ^ 0x7f7f7f7f7f7f7f7f
			if w&0x8080808080808080 == 0 && (w-0x2020202020202020)&^w&0x8080808080808080 == 0 &&
				(x-0x0101010101010101)&^x&0x8080808080808080 == 0 {
				i += 8
				continue
			}
		}
		c := doc[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(doc[i:])
		if r == utf8.RuneError && size == 1 || !yamlPrintable(r) {
			return false
		}
		i += size
	}
	return true
}

func yamlPrintable(r rune) bool {
	return r == 0x85 || r >= 0xA0 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD && r != 0xFEFF || r >= 0x10000 && r <= 0x10FFFF
}
