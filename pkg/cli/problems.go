package cli

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/tfgen/tfgen/pkg/dialect"
)

// problems collects every problem of a run, one line each, so that they
// are reported together.
type problems struct {
	lines []string
	// documents counts the documents with at least one problem.
	documents int
}

// add records err against one document: one line per problem, that is per
// error joined in err and per field error of a *dialect.Error. A problem's
// own line breaks, which can only come from the user's values, are escaped.
func (p *problems) add(err error) {
	if err == nil {
		return
	}
	p.documents++
	for _, e := range flatten(err) {
		if de, ok := e.(*dialect.Error); ok && len(de.Errs) > 0 {
			prefix := de.Prefix()
			for _, fe := range de.Errs {
				p.lines = append(p.lines, oneLine(prefix+fieldError(fe.Field, fe.Error(), fe.ErrorBody())))
			}
			continue
		}
		p.lines = append(p.lines, oneLine(e.Error()))
	}
}

// fieldError prints a field error as dialect.Error does: without the
// field when it has none.
func fieldError(field, full, body string) string {
	if field == "" {
		return body
	}
	return full
}

// flatten splits joined errors into the problems they hold.
func flatten(err error) []error {
	if _, ok := err.(*dialect.Error); ok {
		return []error{err}
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
}

// prefixed returns err with prefix before each problem it holds; a
// *dialect.Error, which names its own document, is kept as it is.
func prefixed(prefix string, err error) error {
	var out []error
	for _, e := range flatten(err) {
		if _, ok := e.(*dialect.Error); ok {
			out = append(out, e)
		} else {
			out = append(out, fmt.Errorf("%s%w", prefix, e))
		}
	}
	return errors.Join(out...)
}

func (p *problems) err() error {
	if len(p.lines) == 0 {
		return nil
	}
	return p
}

func (p *problems) Error() string { return strings.Join(p.lines, "\n") }

func (p *problems) summary() string {
	n := len(p.lines)
	return fmt.Sprintf("%d %s; nothing was written", n, plural(n, "problem", "problems"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// oneLine escapes what would break a line or fool a terminal in s:
// control characters (newlines, carriage returns, escape sequences), the
// Unicode line and paragraph separators and bidirectional controls. Values
// from the user's input reach messages; each message stays one line.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, unprintable) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if !unprintable(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRuneToASCII(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

func unprintable(r rune) bool {
	return (r != '\t' && unicode.IsControl(r)) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r)
}

var _ error = (*problems)(nil)
