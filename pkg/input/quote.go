package input

import (
	"fmt"
	"strconv"
)

// Quote returns s quoted as %q quotes it; when s is longer than MaxQuote
// bytes, only its start is, followed by its length: "abc"… (2000000 bytes).
func Quote(s string) string {
	if len(s) <= MaxQuote {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%q… (%d bytes)", prefix(s, MaxQuote), len(s))
}

// Excerpt returns text, an input value as written or printed (as JSON,
// say), whole up to MaxQuote bytes; else its start followed by its length:
// [[[[… (200000 bytes).
func Excerpt(text string) string {
	if len(text) <= MaxQuote {
		return text
	}
	return fmt.Sprintf("%s… (%d bytes)", prefix(text, MaxQuote), len(text))
}

// Shorten returns msg, a message or a part of one that may hold input
// values, whole up to MaxMessage bytes; else its first MaxMessage bytes
// followed by "…".
func Shorten(msg string) string { return cut(msg, MaxMessage) }

// prefix returns the first n bytes of s at most, not splitting a UTF-8
// sequence.
func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n]
}
