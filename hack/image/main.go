// Command image builds and pushes the tfsupervisor container image without a
// Docker daemon, with go-containerregistry.
//
//	go run . build --out DIR [--tar FILE] --version V --revision R \
//	    --binary linux/amd64=PATH --binary linux/arm64=PATH
//	go run . push [--layout DIR] REF
//
// build writes a multi-platform OCI image layout (and optionally an OCI
// archive of it); push sends that layout's index to a registry. The image is
// the one the repository's Dockerfile describes: see spec.go.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
)

const usage = `usage:
  image build --out DIR [--tar FILE] --version V --revision R [--source URL] [--epoch SECONDS] --binary OS/ARCH=PATH...
  image push [--layout DIR] REF
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

// run dispatches to a subcommand.
func run(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("no subcommand\n%s", usage)
	}
	switch args[0] {
	case "build":
		return runBuild(args[1:], out)
	case "push":
		return runPush(ctx, args[1:], out)
	case "help", "-h", "--help":
		_, err := io.WriteString(out, usage)
		return err
	default:
		return fmt.Errorf("unknown subcommand %q\n%s", args[0], usage)
	}
}
