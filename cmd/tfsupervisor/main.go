//go:build !tfsupervisor_wrap

// Command tfsupervisor supervises one replica of a distributed training
// job inside its pod; see pkg/supervise.
//
// Signals are not turned into a cancelled context here: `run` relays every
// signal to the training process group itself, and `watch` stops on SIGTERM.
package main

import (
	"context"
	"os"

	"github.com/tfgen/tfgen/pkg/supervise/cli"
)

func main() {
	err := cli.NewRoot(os.Stdout, os.Stderr).ExecuteContext(context.Background())
	os.Exit(cli.ExitCode(err, os.Stderr))
}
