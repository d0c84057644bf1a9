package manifest

import (
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// parseJSON reads one JSON value filling all of s, for the fast path:
// integers become int64, and it refuses (ok=false) what YAML 1.1 might
// read differently or what encoding/json would repair: fractions and
// exponents, the "\/" escape, lone surrogates, duplicate keys, keys longer
// than maxKey. It is several times faster than encoding/json on the
// one-line objects templates write with toJson.
func parseJSON(s string) (any, bool) {
	if !utf8.ValidString(s) {
		return nil, false
	}
	p := jsonParser{s: s}
	defer p.release(p.acquire())
	v, ok := p.value()
	p.space()
	return v, ok && p.i == len(s)
}

type jsonParser struct {
	s string
	i int
	// floats makes integers float64, as encoding/json decodes them into any.
	floats bool
	// members holds the members of the objects and the items of the
	// arrays being read.
	members []member
}

// memberBufs are reused for jsonParser.members.
var memberBufs = sync.Pool{New: func() any { return new([]member) }}

func (p *jsonParser) acquire() *[]member {
	b := memberBufs.Get().(*[]member)
	p.members = (*b)[:0]
	return b
}

func (p *jsonParser) release(b *[]member) {
	clear(p.members) // what a failed read left; the rest was cleared as read
	if cap(p.members) <= 4096 {
		*b = p.members[:0]
		memberBufs.Put(b)
	}
}

type member struct {
	key   string
	value any
}

// DecodeJSON decodes data as json.Unmarshal does into a map[string]any
// (numbers as float64) when data is an object without fractions,
// exponents, the "\/" escape, lone surrogates, duplicate keys or invalid
// UTF-8; ok=false otherwise, for encoding/json to decode.
func DecodeJSON(data []byte) (m map[string]any, ok bool) {
	s := string(data)
	if !utf8.ValidString(s) {
		return nil, false
	}
	p := jsonParser{s: s, floats: true}
	defer p.release(p.acquire())
	v, ok := p.value()
	p.space()
	m, isMap := v.(map[string]any)
	return m, ok && isMap && p.i == len(s)
}

func (p *jsonParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *jsonParser) value() (any, bool) {
	p.space()
	if p.i >= len(p.s) {
		return nil, false
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		return p.str()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	for _, lit := range []struct {
		text string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if len(p.s)-p.i >= len(lit.text) && p.s[p.i:p.i+len(lit.text)] == lit.text {
			p.i += len(lit.text)
			return lit.v, true
		}
	}
	return nil, false
}

func (p *jsonParser) object() (any, bool) {
	p.i++
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return map[string]any{}, true
	}
	// The members wait in p.members until the map can be made at its size.
	base := len(p.members)
	for {
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return nil, false
		}
		k, ok := p.str()
		if !ok || len(k) > maxKey {
			return nil, false
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, false
		}
		p.i++
		v, ok := p.value()
		if !ok {
			return nil, false
		}
		p.members = append(p.members, member{k, v})
		p.space()
		if p.i >= len(p.s) {
			return nil, false
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			members := p.members[base:]
			m := make(map[string]any, len(members))
			for _, e := range members {
				m[e.key] = e.value
			}
			clear(members)
			p.members = p.members[:base]
			if len(m) != len(members) {
				return nil, false // a duplicate key
			}
			return m, true
		default:
			return nil, false
		}
	}
}

func (p *jsonParser) array() (any, bool) {
	p.i++
	p.space()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return []any{}, true
	}
	// The items wait in p.members until the slice can be made at its size.
	base := len(p.members)
	for {
		v, ok := p.value()
		if !ok {
			return nil, false
		}
		p.members = append(p.members, member{value: v})
		p.space()
		if p.i >= len(p.s) {
			return nil, false
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			items := p.members[base:]
			a := make([]any, len(items))
			for i, e := range items {
				a[i] = e.value
			}
			clear(items)
			p.members = p.members[:base]
			return a, true
		default:
			return nil, false
		}
	}
}

func (p *jsonParser) number() (any, bool) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	digits := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	if p.i == digits || p.s[digits] == '0' && p.i-digits > 1 {
		return nil, false
	}
	if p.i < len(p.s) && (p.s[p.i] == '.' || p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		return nil, false
	}
	n, err := strconv.ParseInt(p.s[start:p.i], 10, 64)
	if p.floats {
		// -0 is a negative zero to encoding/json.
		return float64(n), err == nil && !(n == 0 && p.s[start] == '-')
	}
	return n, err == nil
}

// strStop holds the bytes that end the plain run of a JSON string: the
// closing quote, an escape or a control character.
var strStop = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

func (p *jsonParser) str() (string, bool) {
	p.i++
	start := p.i
	for p.i < len(p.s) {
		for p.i < len(p.s) && !strStop[p.s[p.i]] {
			p.i++
		}
		if p.i == len(p.s) {
			break
		}
		switch c := p.s[p.i]; {
		case c == '"':
			s := p.s[start:p.i]
			p.i++
			return s, true
		case c == '\\':
			return p.escaped(start)
		case c < 0x20:
			return "", false
		}
		p.i++
	}
	return "", false
}

// escaped continues a string with escapes from p.i; start is its first byte.
func (p *jsonParser) escaped(start int) (string, bool) {
	b := []byte(p.s[start:p.i])
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return string(b), true
		case c < 0x20:
			return "", false
		case c != '\\':
			b = append(b, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.s) {
			return "", false
		}
		e := p.s[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", false
			}
			if utf16.IsSurrogate(r) {
				if p.i+1 >= len(p.s) || p.s[p.i] != '\\' || p.s[p.i+1] != 'u' {
					return "", false
				}
				p.i += 2
				r2, ok := p.hex4()
				if r = utf16.DecodeRune(r, r2); !ok || r == utf8.RuneError {
					return "", false
				}
			}
			b = utf8.AppendRune(b, r)
		default:
			return "", false
		}
	}
	return "", false
}

func (p *jsonParser) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	n, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32)
	p.i += 4
	return rune(n), err == nil
}
