package cli

import (
	"fmt"
	"io"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/tfgen/tfgen/pkg/version"
)

func newVersionCmd(out io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(out, "tfsupervisor %s (commit %s) %s/%s %s\n",
				version.Version, version.Commit, runtime.GOOS, runtime.GOARCH, runtime.Version())
			return err
		},
	}
}
