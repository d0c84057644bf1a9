package cli

import (
	"fmt"
	"strings"

	"github.com/tfgen/tfgen/pkg/dialect"
)

// problems collects every problem of a run, one line each, so that they
// are reported together.
type problems struct {
	lines []string
	// documents counts the documents with at least one problem.
	documents int
}

// add records err (possibly joined or multi-line) against one document.
func (p *problems) add(err error) {
	if err == nil {
		return
	}
	p.documents++
	for _, e := range flatten(err) {
		for _, line := range strings.Split(strings.TrimRight(e.Error(), "\n"), "\n") {
			p.lines = append(p.lines, line)
		}
	}
}

// flatten splits joined errors; a *dialect.Error stays whole (it prints one
// line per problem itself).
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

var _ error = (*problems)(nil)
