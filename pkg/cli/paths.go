package cli

import (
	"strings"

	"github.com/spf13/pflag"
)

// pathList is the value of -f: paths, repeatable and comma-separated as
// kubectl's -f, each taken as written otherwise. (pflag's string slices
// read a value as a line of CSV: a path holding a double quote failed with
// `bare " in non-quoted-field`, and one holding a line break was cut at
// it.) A path with a comma in its name goes after the flags, as an
// argument.
type pathList struct {
	paths *[]string
}

var _ pflag.Value = pathList{}

func (l pathList) Set(v string) error {
	*l.paths = append(*l.paths, strings.Split(v, ",")...)
	return nil
}

func (l pathList) String() string { return "[" + strings.Join(*l.paths, ",") + "]" }

func (pathList) Type() string { return "strings" }
