// Command tfgen renders TFJob specs into plain Kubernetes objects; see
// `tfgen --help` and the README.
package main

import (
	"context"
	"os"
	"runtime/debug"

	"github.com/tfgen/tfgen/pkg/cli"
)

func main() {
	// A short run with a small heap: collect less often (rendering 1,000
	// jobs spends a sixth of its CPU in the collector at the default 100).
	debug.SetGCPercent(400)
	ctx, stop := cli.SignalContext(context.Background())
	defer stop()
	s := cli.Streams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	err := cli.NewRootCmd(s).ExecuteContext(ctx)
	if code := cli.Report(os.Stderr, err); code != 0 {
		stop()
		os.Exit(code)
	}
}
