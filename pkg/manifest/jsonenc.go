package manifest

import (
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends v as encoding/json.Marshal writes it, byte for byte,
// for plain data: maps with string keys, []any, []string, strings, bools,
// nil and numbers (int, int32, int64, float64). For anything else, a
// number JSON cannot hold included, it returns ok=false, and the caller
// uses encoding/json.
func AppendJSON(dst []byte, v any) (_ []byte, ok bool) {
	switch t := v.(type) {
	case nil:
		return append(dst, "null"...), true
	case string:
		return appendJSONString(dst, t), true
	case bool:
		return strconv.AppendBool(dst, t), true
	case int64:
		return strconv.AppendInt(dst, t, 10), true
	case int:
		return strconv.AppendInt(dst, int64(t), 10), true
	case int32:
		return strconv.AppendInt(dst, int64(t), 10), true
	case float64:
		return appendJSONFloat(dst, t)
	case map[string]any:
		return appendJSONMap(dst, t)
	case Object:
		return appendJSONMap(dst, t)
	case []any:
		if t == nil {
			return append(dst, "null"...), true
		}
		dst = append(dst, '[')
		for i, e := range t {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, ok = AppendJSON(dst, e); !ok {
				return dst, false
			}
		}
		return append(dst, ']'), true
	case []string:
		if t == nil {
			return append(dst, "null"...), true
		}
		dst = append(dst, '[')
		for i, e := range t {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, e)
		}
		return append(dst, ']'), true
	}
	return dst, false
}

func appendJSONMap(dst []byte, m map[string]any) (_ []byte, ok bool) {
	if m == nil {
		return append(dst, "null"...), true
	}
	var buf [16]string
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, k)
		dst = append(dst, ':')
		if dst, ok = AppendJSON(dst, m[k]); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

// appendJSONFloat is encoding/json's float64 encoding.
func appendJSONFloat(dst []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9, as encoding/json writes it.
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, true
}

const hexDigits = "0123456789abcdef"

// jsonSafe holds the ASCII characters encoding/json writes as they are
// (HTML escaping on: not <, > and &).
var jsonSafe = func() (s [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		s[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return s
}()

// appendJSONString is encoding/json's string encoding, HTML escaping on.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if jsonSafe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
