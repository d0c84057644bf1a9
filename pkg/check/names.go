package check

import "strings"

// Fast paths of apimachinery's name and label validation, which use regular
// expressions; they accept only what it accepts, and anything they refuse
// is checked again by apimachinery for its message.

// dnsSubdomain reports a lowercase RFC 1123 subdomain of at most 253 characters.
func dnsSubdomain(s string) bool {
	if len(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if !dnsLabel(label, 253) {
			return false
		}
	}
	return true
}

// dnsLabel reports lowercase alphanumerics and '-', alphanumeric at both ends.
func dnsLabel(s string, max int) bool {
	if s == "" || len(s) > max || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// labelValue reports a valid label value: empty, or at most 63 characters
// of alphanumerics, '-', '_' and '.', alphanumeric at both ends.
func labelValue(s string) bool {
	if s == "" {
		return true
	}
	if len(s) > 63 || !alnum(s[0]) || !alnum(s[len(s)-1]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !alnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// labelKey reports a qualified name: [DNS-subdomain prefix "/"] name.
func labelKey(k string) bool {
	prefix, name, found := strings.Cut(k, "/")
	if !found {
		name, prefix = prefix, ""
	} else if !dnsSubdomain(prefix) {
		return false
	}
	return name != "" && labelValue(name)
}

func alnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }
