package cli

import (
	"context"
	"io"
	"os"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/tfgen/tfgen/pkg/supervise"
	"github.com/tfgen/tfgen/pkg/supervise/capture"
	"github.com/tfgen/tfgen/pkg/supervise/proc"
)

// run is tfsupervisor run (see runLong): it supervises the command args.
func (o *options) run(ctx context.Context, fs *pflag.FlagSet, args []string, stderr io.Writer) error {
	// Catch signals first. The relay is never stopped: the process ends
	// with the command, and stopping it would cost a round trip to the
	// runtime per signal. Catching them all takes about a millisecond, done
	// while the rest gets ready; the training process waits for it.
	sigs, ready := proc.Signals()
	tuneRuntime(true)
	if err := fromEnv(fs); err != nil {
		return err
	}
	cfg, err := o.Config(podIdentity())
	if err != nil {
		return err
	}
	if err := clusterEnvFits(cfg); err != nil {
		return err
	}
	d, err := o.wire(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	stopKeeper := d.keep(ctx)
	// In a pod the supervisor stays once its replica is done: the kubelet
	// would only start it again.
	sup := &supervise.Supervisor{Config: cfg, Runner: proc.GatedRunner{Runner: proc.NewRunner(cfg.Logf), Ready: ready}, Status: d.status,
		Reporter: d.reporter, Signals: sigs, Previous: d.previous, Linger: d.inPod, Complete: o.complete, ClusterEnv: true}
	// The end of the output goes into the replica's record, where it
	// outlives the pod. A terminal (tty: true) is left to the process.
	if !term.IsTerminal(int(os.Stdout.Fd())) {
		sup.Output = &capture.Output{Stdout: os.Stdout, Stderr: os.Stderr}
	}
	res := sup.Run(ctx, supervise.Command{Args: args, Env: os.Environ()})
	stopKeeper()
	if err := writeTermination(o.terminationLog, res); err != nil {
		cfg.Logf("%v", err)
	}
	return exitFor(res)
}

// exitFor is the supervisor's exit for res: the training process's exit
// code, or once the job gave the pod back, ReleasedExitCode.
func exitFor(res supervise.Result) error {
	code := res.ExitCode
	if res.Released {
		code = res.ReleasedExitCode()
	}
	if code != 0 {
		return &ExitError{Code: code}
	}
	return nil
}
