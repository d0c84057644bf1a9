//go:build tfsupervisor_wrap

package main

import (
	"context"
	"os"

	"github.com/tfgen/tfgen/pkg/supervise/cli"
)

// The wrap-only build (go build -tags tfsupervisor_wrap): tfsupervisor run
// for the training container; see cli.Wrap.
func main() {
	err := cli.Wrap(context.Background(), os.Args[1:], os.Stdout, os.Stderr)
	os.Exit(cli.ExitCode(err, os.Stderr))
}
