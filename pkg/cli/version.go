package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tfgen/tfgen/pkg/version"
)

func newVersionCmd(s Streams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of tfgen and its default tfsupervisor image",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(s.Out, "%s\nsupervisor image: %s\nkube version: %s\n", version.String(), version.SupervisorImage(), version.KubeVersion)
			return err
		},
	}
}
