// Command kubectl-tfjob is tfgen as a kubectl plugin: with the binary on
// PATH, `kubectl tfjob list`, `kubectl tfjob status JOB` and the rest run
// tfgen's commands. See the README.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/tfgen/tfgen/pkg/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cmd := cli.NewRootCmd(cli.Streams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
	cmd.Use = "kubectl-tfjob"
	cmd.Annotations = map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl tfjob"}
	err := cmd.ExecuteContext(ctx)
	if code := cli.Report(os.Stderr, err); code != 0 {
		stop()
		os.Exit(code)
	}
}
