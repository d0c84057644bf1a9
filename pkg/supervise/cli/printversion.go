package cli

import (
	"fmt"
	"io"
	"runtime"

	"github.com/tfgen/tfgen/pkg/version"
)

// printVersion prints tfsupervisor's version line.
func printVersion(out io.Writer) error {
	_, err := fmt.Fprintf(out, "tfsupervisor %s (commit %s) %s/%s %s\n",
		version.Version, version.Commit, runtime.GOOS, runtime.GOARCH, runtime.Version())
	return err
}
