package cli

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// EnvPrefix prefixes the environment variable of each flag:
// --restart-policy is also TFSUPERVISOR_RESTART_POLICY.
const EnvPrefix = "TFSUPERVISOR_"

// options are the flags of docs/contract.md, shared by run and watch.
type options struct {
	job, framework, roles, replicaType, clusterDomain string
	excludeEvaluator, sparse, holdFinished, complete  bool
	publishAddress                                    bool // watch only
	restartPolicy, retryableExitCodes, restartBackoff string
	maxRestarts, backoffLimit                         limit
	activeDeadline, gracePeriod                       time.Duration
	successPolicy, successReplica, cleanPodPolicy     string
	successWorkers, restartScope                      string
	evaluatorGrace                                    time.Duration
	ttlAfterFinished                                  string
	elasticWorkers                                    string
	terminationLog                                    string
	socket                                            string
	kubeVersion                                       string
}

// AddFlags registers the flags on fs.
func (o *options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.job, "job", "", "job name (record ConfigMap J, StatefulSets J-<type>)")
	fs.StringVar(&o.framework, "framework", cluster.TensorFlow, "tensorflow or mxnet")
	fs.StringVar(&o.roles, "roles", "", "the job's layout, type:replicas:port[:label],... (none: no TF_CONFIG)")
	fs.StringVar(&o.replicaType, "replica-type", "", "this pod's lowercase replica type (default: from POD_NAME)")
	fs.StringVar(&o.clusterDomain, "cluster-domain", "", "cluster domain appended to replica addresses")
	fs.BoolVar(&o.excludeEvaluator, "exclude-evaluator", false, "leave the evaluator out of TF_CONFIG's cluster")
	fs.BoolVar(&o.sparse, "sparse", false, "sparse TF_CONFIG of dynamic workers")
	fs.StringVar(&o.restartPolicy, "restart-policy", string(supervise.Never), "Never, OnFailure, Always or ExitCode")
	fs.StringVar(&o.retryableExitCodes, "retryable-exit-codes", "", "exit codes and ranges ExitCode retries, e.g. 130,137 (default 128-255)")
	fs.Var(&o.maxRestarts, "max-restarts", "restarts allowed to this replica, 0 or more (default: no limit)")
	fs.Var(&o.backoffLimit, "backoff-limit", "restarts allowed to the whole job, 0 or more (default: no limit)")
	fs.StringVar(&o.restartBackoff, "restart-backoff", "1s,5m", "INITIAL[,MAX] wait before a restart, doubling")
	fs.DurationVar(&o.activeDeadline, "active-deadline", 0, "fail the job this long after it started (0: never)")
	fs.StringVar(&o.successPolicy, "success-policy", "", `"" or AllWorkers`)
	fs.StringVar(&o.successReplica, "success-replica", "", "type-index of the replica whose success is the job's (worker-0)")
	fs.StringVar(&o.successWorkers, "success-workers", "", "without a chief, the job succeeds once this many workers have: a count or a percentage (50%)")
	fs.StringVar(&o.restartScope, "restart-scope", "", "what a retryable failure restarts: Replica (default), or Job (every replica's training process, in place; wrap mode)")
	fs.DurationVar(&o.evaluatorGrace, "evaluator-grace", supervise.DefaultEvaluatorGrace, "time a running evaluator gets to finish once the job succeeded (0: stop it at once)")
	fs.StringVar(&o.cleanPodPolicy, "clean-pod-policy", string(supervise.CleanRunning), "what stops when the job ends: All, Running or None")
	fs.StringVar(&o.ttlAfterFinished, "ttl-after-finished", "", "stop every replica this long after the job ended (empty: never)")
	fs.StringVar(&o.elasticWorkers, "elastic-workers", "", "MIN-MAX: the keeper resizes the job's workers within them by DRAGON's strategy (empty: never)")
	fs.BoolVar(&o.holdFinished, "hold-finished", false, "keep a finished replica's pod until the job ends (a job Kueue admits as one group)")
	fs.BoolVar(&o.complete, "complete", false, "in a pod, exit once the job gives the pod back (0, or 3 for a failed replica), so that it ends holding nothing (its container's restart rules must leave 0 and 3 alone)")
	fs.DurationVar(&o.gracePeriod, "grace-period", 30*time.Second, "SIGTERM to SIGKILL of the training process group")
	fs.StringVar(&o.terminationLog, "termination-log", "/dev/termination-log", "where to write the termination message (empty: nowhere)")
	fs.StringVar(&o.kubeVersion, "kube-version", "", "the Kubernetes minor (X.Y) the pod was rendered for: a pod that lacks what that render needs (an older API server dropped it) does not train, and says so naming it")
	fs.StringVar(&o.socket, "socket", "", "Unix socket of the supervisor's sidecar: run reports through it, watch serves it (wrap mode in a pod)")
}

// limit is a count flag that is unset (no limit) until given: a number of
// 0 or more. A negative number is an error, not another way to say "none".
type limit struct{ n *int32 }

var _ pflag.Value = (*limit)(nil)

func (l *limit) String() string {
	if l.n == nil {
		return ""
	}
	return strconv.Itoa(int(*l.n))
}

func (l *limit) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil || n < 0 {
		return fmt.Errorf("want a whole number, 0 or more (leave the flag out for no limit)")
	}
	v := int32(n)
	l.n = &v
	return nil
}

func (l *limit) Type() string { return "int32" }

// fromEnv sets each flag not given on the command line from its
// TFSUPERVISOR_<FLAG_IN_UPPER_SNAKE> variable.
func fromEnv(fs *pflag.FlagSet) error {
	var errs []error
	fs.VisitAll(func(f *pflag.Flag) {
		name := EnvPrefix + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v, ok := os.LookupEnv(name); ok && !f.Changed {
			if err := fs.Set(f.Name, v); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", name, err))
			}
		}
	})
	return errors.Join(errs...)
}

// identity is who this replica is, from the downward API.
type identity struct {
	pod, namespace string
}

// podIdentity reads the pod's name and namespace from TFGEN_POD_NAME and
// TFGEN_POD_NAMESPACE, which tfgen renders for tfsupervisor alone (the
// training container's own POD_NAME and POD_NAMESPACE may hold anything
// its user likes). A pod rendered by a tfgen before them has POD_NAME and
// POD_NAMESPACE from the downward API instead, read when TFGEN_POD_NAME
// is not set.
func podIdentity() identity {
	name, namespace := "TFGEN_POD_NAME", "TFGEN_POD_NAMESPACE"
	if _, ok := os.LookupEnv(name); !ok {
		name, namespace = "POD_NAME", "POD_NAMESPACE"
	}
	id := identity{pod: os.Getenv(name), namespace: os.Getenv(namespace)}
	if id.namespace == "" {
		id.namespace = "default"
	}
	return id
}

// Config turns the options into a supervise.Config for the pod id.
func (o *options) Config(id identity) (*supervise.Config, error) {
	j, jerrs := o.jobPolicy(id.namespace)
	errs := jerrs
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	c := &supervise.Config{Job: j, Pod: id.pod, GracePeriod: o.gracePeriod}
	var err error
	c.Self.Type = strings.ToLower(o.replicaType)
	if c.Self.Type == "" {
		c.Self.Type = typeFromPod(o.job, id.pod)
	}
	if id.pod != "" {
		c.Self.Index, err = cluster.Ordinal(id.pod)
		if o.roles != "" {
			add(err)
		}
	} else if o.roles != "" {
		add(errors.New("TFGEN_POD_NAME (or POD_NAME) is not set: the replica's ordinal comes from its suffix"))
	}
	c.Policy.Restart, err = supervise.ParseRestartPolicy(o.restartPolicy)
	add(err)
	if o.retryableExitCodes != "" {
		c.Policy.RetryableExitCodes, err = supervise.ParseExitCodes(o.retryableExitCodes)
		add(err)
	}
	c.Policy.Backoff, err = supervise.ParseBackoff(o.restartBackoff)
	add(err)
	c.Policy.MaxRestarts = o.maxRestarts.n
	if len(errs) == 0 {
		add(c.Validate())
	}
	return c, errors.Join(errs...)
}

// jobPolicy turns the job-wide options into the job's policy, in
// namespace, unvalidated, and the problems found.
func (o *options) jobPolicy(namespace string) (*supervise.Job, []error) {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	j := &supervise.Job{Name: o.job, Namespace: namespace, ActiveDeadline: o.activeDeadline,
		SuccessPolicy: o.successPolicy, EvaluatorGrace: o.evaluatorGrace, RestartScope: o.restartScope,
		BackoffLimit: o.backoffLimit.n}
	j.Layout = &cluster.Layout{Job: o.job, Framework: o.framework, ClusterDomain: o.clusterDomain,
		ExcludeEvaluator: o.excludeEvaluator, Sparse: o.sparse}
	var err error
	if o.roles != "" {
		j.Layout.Roles, err = cluster.ParseRoles(o.roles)
		add(err)
	}
	if o.successReplica != "" {
		ref, err := supervise.ParseRef(o.successReplica)
		add(err)
		j.SuccessReplica = &ref
	}
	if o.successWorkers != "" {
		q, err := supervise.ParseQuota(o.successWorkers)
		add(err)
		j.SuccessWorkers = &q
	}
	j.CleanPodPolicy, err = supervise.ParseCleanPodPolicy(o.cleanPodPolicy)
	add(err)
	if o.ttlAfterFinished != "" {
		d, err := time.ParseDuration(o.ttlAfterFinished)
		if err != nil || d < 0 {
			add(fmt.Errorf("ttl after finished %q: want a duration such as 600s", o.ttlAfterFinished))
		}
		j.TTLAfterFinished = &d
	}
	if o.elasticWorkers != "" {
		var lo, hi int32
		if _, err := fmt.Sscanf(o.elasticWorkers, "%d-%d", &lo, &hi); err != nil || fmt.Sprintf("%d-%d", lo, hi) != o.elasticWorkers {
			add(fmt.Errorf("elastic workers %q: want MIN-MAX, such as 1-4", o.elasticWorkers))
		}
		j.Elastic = &supervise.Elastic{Min: lo, Max: hi}
	}
	j.HoldFinished = o.holdFinished
	return j, errs
}

// Job turns the job-wide options into the job's policy, validated, in
// namespace: what the keeper keeps.
func (o *options) Job(namespace string) (*supervise.Job, error) {
	j, errs := o.jobPolicy(namespace)
	if len(errs) == 0 {
		errs = append(errs, j.Validate())
	}
	return j, errors.Join(errs...)
}

// typeFromPod reads the replica type from a StatefulSet pod name J-t-i;
// "worker" when it does not have that shape.
func typeFromPod(job, pod string) string {
	rest, ok := strings.CutPrefix(pod, job+"-")
	if i := strings.LastIndexByte(rest, '-'); ok && job != "" && i > 0 {
		return rest[:i]
	}
	return "worker"
}

// ParseConfig returns the supervise.Config that `tfsupervisor run` builds
// from flags (those before --) for pod in namespace, reading no
// environment variables. tfgen run's tests use it to check that a local run
// supervises each replica as its pod would.
func ParseConfig(flags []string, pod, namespace string) (*supervise.Config, error) {
	o := &options{}
	fs := pflag.NewFlagSet("tfsupervisor run", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse(flags); err != nil {
		return nil, err
	}
	return o.Config(identity{pod: pod, namespace: namespace})
}
