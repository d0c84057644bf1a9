//go:build tfsupervisor_wrap

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/tfgen/tfgen/pkg/supervise"
)

// Wrap is the command line of the wrap-only build of tfsupervisor (build
// tag tfsupervisor_wrap), which the image ships for the training
// container (docs/contract.md): `run` and `version`, without cobra, the
// API client, TLS or YAML. Its `run` reports through the pod's sidecar
// (--socket), as tfgen renders it, or, with no cluster, standalone; the
// image's /tfsupervisor has every command.
//
// It exists for memory: each page of a static binary that a process
// touches counts in its resident memory, and a process touches most of
// its binary's pages at start (package initialisation). Wrap mode runs
// two supervisors in every pod.
func Wrap(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: tfsupervisor run [flags] -- CMD [ARGS...]")
	}
	switch args[0] {
	case "run":
		o := &options{}
		fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
		fs.SetOutput(stderr)
		fs.SetInterspersed(false)
		o.AddFlags(fs)
		if err := fs.Parse(args[1:]); err != nil {
			if errors.Is(err, pflag.ErrHelp) {
				return nil
			}
			return err
		}
		if fs.NArg() == 0 {
			return errors.New("run needs the command to supervise: tfsupervisor run [flags] -- CMD [ARGS...]")
		}
		return o.run(ctx, fs, fs.Args(), stderr)
	case "version":
		return printVersion(stdout)
	}
	return fmt.Errorf("%s: this wrap-only tfsupervisor runs run and version; the image's /tfsupervisor has every command", args[0])
}

// wire connects run: through the sidecar at --socket, or standalone when
// there is no cluster. Reporting to the API server itself is the full
// build's.
func (o *options) wire(ctx context.Context, cfg *supervise.Config, stderr io.Writer) (*deps, error) {
	switch {
	case o.socket != "":
		return relayed(ctx, cfg, o.socket, stderr)
	case os.Getenv("KUBERNETES_SERVICE_HOST") == "" && os.Getenv("KUBECONFIG") == "":
		return standalone(cfg, stderr), nil
	}
	return nil, errors.New("this wrap-only tfsupervisor reports through its sidecar (--socket) or, with no cluster, to stderr: run the image's /tfsupervisor to report to the API server itself")
}
