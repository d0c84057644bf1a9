package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/tfgen/tfgen/pkg/operate"
	"github.com/tfgen/tfgen/pkg/version"
)

// kubeOptions are the flags of the commands that talk to a cluster,
// read as kubectl reads them: clientcmd's loading rules ($KUBECONFIG,
// ~/.kube/config, in-cluster) with --kubeconfig, --context and -n on top.
type kubeOptions struct {
	Kubeconfig string
	Context    string
	Namespace  string
}

// AddFlags registers --kubeconfig, --context and -n.
func (o *kubeOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)")
	fs.StringVar(&o.Context, "context", "", "the kubeconfig context to use (default: its current context)")
	fs.StringVarP(&o.Namespace, "namespace", "n", "", "namespace of the job (default: the context's, else default)")
}

// scopeOptions are the flags of the commands that read the jobs of one
// namespace, or with -A of every namespace: kubeOptions and -A.
type scopeOptions struct {
	kube          kubeOptions
	AllNamespaces bool
}

// AddFlags registers kubeOptions' flags and -A, which makes the command
// verb ("list") the jobs of every namespace.
func (o *scopeOptions) AddFlags(fs *pflag.FlagSet, verb string) {
	o.kube.AddFlags(fs)
	fs.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, verb+" the jobs of every namespace")
}

// Validate refuses -A with -n.
func (o *scopeOptions) Validate() error {
	if o.AllNamespaces && o.kube.Namespace != "" {
		return fmt.Errorf("-A and -n: give one")
	}
	return nil
}

// namespace is ns, the namespace the kubeconfig and -n choose, or "" (every
// namespace) under -A.
func (o *scopeOptions) namespace(ns string) string {
	if o.AllNamespaces {
		return ""
	}
	return ns
}

// config returns the REST config and the namespace the flags choose.
func (o *kubeOptions) config() (*rest.Config, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.Kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: o.Context}
	overrides.Context.Namespace = o.Namespace
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("kubeconfig: %w", err)
	}
	ns, _, err := cc.Namespace()
	if err != nil {
		return nil, "", fmt.Errorf("kubeconfig: %w", err)
	}
	return cfg, ns, nil
}

// client returns the operations' client for the flags, writing the API
// server's warnings to s.ErrOut, and the namespace.
func (o *kubeOptions) client(cmd *cobra.Command, s Streams) (*operate.Client, string, error) {
	cfg, ns, err := o.config()
	if err != nil {
		return nil, "", err
	}
	cfg.UserAgent = "tfgen/" + version.Version
	cfg.QPS, cfg.Burst = 50, 100
	cfg.WarningHandler = rest.NewWarningWriter(s.ErrOut, rest.WarningWriterOptions{Deduplicate: true})
	c, err := operate.New(cfg)
	if err != nil {
		return nil, "", err
	}
	c.Now = clock(cmd.Context())
	return c, ns, nil
}

type clockKey struct{}

// WithClock returns ctx with the clock that the cluster commands use for
// ages and durations, and for the times they write into a job's record
// (tests freeze it); time.Now by default.
func WithClock(ctx context.Context, now func() time.Time) context.Context {
	return context.WithValue(ctx, clockKey{}, now)
}

// clock returns the clock of ctx.
func clock(ctx context.Context) func() time.Time {
	if ctx != nil {
		if now, ok := ctx.Value(clockKey{}).(func() time.Time); ok {
			return now
		}
	}
	return time.Now
}

// job returns the client and job name of the namespace the flags choose.
func (o *kubeOptions) job(cmd *cobra.Command, s Streams, name string) (*operate.Client, *operate.Job, error) {
	c, ns, err := o.client(cmd, s)
	if err != nil {
		return nil, nil, err
	}
	j, err := c.Get(cmd.Context(), ns, name)
	if err != nil {
		return nil, nil, err
	}
	return c, j, nil
}

// oneJob is the Args check of the commands on one job.
func oneJob(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("want one job name, got %d arguments: %s", len(args), cmd.UseLine())
	}
	return nil
}
