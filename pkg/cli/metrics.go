package cli

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tfgen/tfgen/pkg/metrics"
	"github.com/tfgen/tfgen/pkg/version"
)

const metricsLong = `Serve Prometheus metrics of the jobs of a namespace (or of all, with -A)
on --listen: /metrics, and /healthz once the jobs have been listed.

It only reads: one watch of the jobs' records and one of their pods (get,
list and watch on configmaps and pods). Run it as one long-lived reader per
namespace or cluster (charts/tfgen-metrics): its counters rise as jobs pass,
as rate() and increase() expect.

Kubeflow training-operator's counters, labelled job_namespace and framework
(tensorflow, mxnet): training_operator_jobs_created_total, _deleted_total,
_successful_total, _failed_total and _restarted_total. Each counts what the
reader saw happen, once; what happened before it first listed the jobs is
never counted, so a restarted reader counts no job twice.

tfgen's: tfgen_jobs_running and tfgen_jobs_pending; per job
tfgen_job_replicas{replica_type,state}, tfgen_job_restarts and
tfgen_job_last_exit_code{replica_type}; histograms of the jobs it saw
created: tfgen_jobs_first_pod_launch_delay_seconds and
tfgen_jobs_all_pods_launch_delay_seconds (creation to the first and to
every replica's container running), tfgen_jobs_stop_delay_seconds (the
job's end to the last training process it stopped having exited).

Examples:
  tfgen metrics -n team-a
  tfgen metrics -A --listen :9090`

// metricsOptions are the flags of tfgen metrics.
type metricsOptions struct {
	scopeOptions
	Listen string
}

// AddFlags registers the flags of tfgen metrics.
func (o *metricsOptions) AddFlags(fs *pflag.FlagSet) {
	o.scopeOptions.AddFlags(fs, "follow")
	fs.StringVar(&o.Listen, "listen", ":8080", "address to serve /metrics and /healthz on")
}

// Validate checks the flags.
func (o *metricsOptions) Validate() error {
	if err := o.scopeOptions.Validate(); err != nil {
		return err
	}
	if _, _, err := net.SplitHostPort(o.Listen); err != nil {
		return fmt.Errorf("--listen %q: %w", o.Listen, err)
	}
	return nil
}

func newMetricsCmd(s Streams) *cobra.Command {
	o := &metricsOptions{}
	cmd := &cobra.Command{
		Use:   "metrics [flags]",
		Short: "Serve Prometheus metrics of the jobs, under Kubeflow's names",
		Long:  metricsLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd, s)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// Run serves until the command's context ends.
func (o *metricsOptions) Run(cmd *cobra.Command, s Streams) error {
	cfg, ns, err := o.kube.config()
	if err != nil {
		return err
	}
	cfg.UserAgent = "tfgen-metrics/" + version.Version
	ns = o.namespace(ns)
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return err
	}
	logger := log.New(s.ErrOut, "", log.LstdFlags)
	logger.Printf("serving metrics on %s", ln.Addr())
	srv := &metrics.Server{Config: cfg, Namespace: ns, Logf: logger.Printf}
	if err := srv.Serve(cmd.Context(), ln); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}
