package manifest

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// quote returns s as a YAML scalar that reads back as the string s under
// both YAML 1.1 (sigs.k8s.io/yaml, Helm, kubectl) and YAML 1.2: plain when
// that is unambiguous, single-quoted when s holds double quotes (JSON reads
// better that way), double-quoted otherwise.
func quote(s string) string {
	if plainSafe(s) {
		return s
	}
	if singleOK(s) {
		return "'" + s + "'"
	}
	return doubleQuote(s)
}

// plainSafe is deliberately conservative: printable ASCII, no indicator
// characters where YAML would see structure, and nothing a resolver could
// take for a boolean, null, number or timestamp.
func plainSafe(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' || s[len(s)-1] == ':' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !plainSpecial[c] {
			continue
		}
		switch {
		case c < 0x20 || c >= 0x7f:
			return false
		case indicator[c] && (i == 0 || c != '#' && c != '@' && c != '%'):
			return false
		case c == ':' && i+1 < len(s) && s[i+1] == ' ', c == ' ' && i+1 < len(s) && s[i+1] == '#':
			return false
		}
	}
	switch s[0] {
	case '-', '?', ':':
		if len(s) == 1 || s[1] == ' ' || s == "---" {
			return false
		}
	case '=', '<', '~', '.', '+':
		return false
	}
	if yaml11Special(s) {
		return false
	}
	return !numberLike(s)
}

// byteSet is a set of ASCII characters.
type byteSet [256]bool

func newByteSet(chars string) *byteSet {
	var b byteSet
	for i := 0; i < len(chars); i++ {
		b[chars[i]] = true
	}
	return &b
}

var (
	// indicator holds the characters that may start YAML structure.
	indicator = newByteSet("#,[]{}&*!|>'\"%@`\\")
	// plainSpecial holds the bytes plainSafe looks at twice: indicators,
	// ':', ' ' and the unprintable.
	plainSpecial = func() *byteSet {
		b := *indicator
		for c := 0; c < 256; c++ {
			b[c] = b[c] || c < 0x20 || c >= 0x7f || c == ':' || c == ' '
		}
		return &b
	}()
	// numberChars holds the characters of YAML 1.1 and 1.2 numbers and
	// timestamps.
	numberChars = newByteSet("0123456789abcdefABCDEFxXoO_.:+-tTzZ ")
)

// numberLike reports strings that start like a number and hold only
// characters YAML 1.1 and 1.2 integers, floats and timestamps are made of;
// "500m", "2Gi", "30s" and "00-configmap-j.yaml" stay plain.
func numberLike(s string) bool {
	c := s[0]
	if c == '-' {
		if len(s) == 1 {
			return false
		}
		c = s[1]
	}
	if (c < '0' || c > '9') && c != '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !numberChars[s[i]] {
			return false
		}
	}
	return true
}

// singleOK allows single quotes for one-line strings that hold a double
// quote or backslash but no single quote and no non-printable character.
func singleOK(s string) bool {
	if !strings.ContainsAny(s, "\"\\") || strings.ContainsAny(s, "'\n") || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !printableRune(r) {
			return false
		}
	}
	return true
}

func printableRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 0x20 && r != 0x7f
	}
	return yamlPrintable(r) && r != 0x85 && r != 0x2028 && r != 0x2029
}

// doubleQuote writes a YAML double-quoted scalar; escapes are those YAML
// 1.1 and 1.2 share. Invalid UTF-8 becomes U+FFFD.
func doubleQuote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case printableRune(r):
			b.WriteRune(r)
		case r <= 0xFFFF:
			b.WriteString(`\u`)
			b.WriteString(hex(uint32(r), 4))
		default:
			b.WriteString(`\U`)
			b.WriteString(hex(uint32(r), 8))
		}
	}
	b.WriteByte('"')
	return b.String()
}

func hex(v uint32, width int) string {
	h := strconv.FormatUint(uint64(v), 16)
	return strings.Repeat("0", width-len(h)) + h
}
