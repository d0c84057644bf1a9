package cli

import (
	"github.com/spf13/cobra"
)

const completionLong = `Print a shell completion script for tfgen.

Examples:
  source <(tfgen completion bash)
  tfgen completion zsh > "${fpath[1]}/_tfgen"
  tfgen completion fish > ~/.config/fish/completions/tfgen.fish`

func newCompletionCmd(s Streams) *cobra.Command {
	return &cobra.Command{
		Use:       "completion bash|zsh|fish|powershell",
		Short:     "Print a shell completion script",
		Long:      completionLong,
		Args:      cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(s.Out, true)
			case "zsh":
				return root.GenZshCompletion(s.Out)
			case "fish":
				return root.GenFishCompletion(s.Out, true)
			}
			return root.GenPowerShellCompletionWithDesc(s.Out)
		},
	}
}
