package localrun

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/supervise"
	"github.com/tfgen/tfgen/pkg/validate"
	"github.com/tfgen/tfgen/pkg/values"
)

// PlanOptions adapt a job to this machine.
type PlanOptions struct {
	// Replicas replaces the replica count of the types it names
	// (lowercase: worker, ps).
	Replicas map[string]int32
	// GracePeriod, when positive, replaces every pod template's
	// terminationGracePeriodSeconds (default 30s).
	GracePeriod time.Duration
	// Backoff between restarts; nil is tfsupervisor's default (1s
	// doubling to 5m).
	Backoff *supervise.Backoff
	// Namespace for POD_NAMESPACE when the job sets none; "" is default.
	Namespace string
	// Environ is the environment every process starts from; nil is
	// this process's.
	Environ []string
	// Ports returns n distinct free ports; nil asks the kernel.
	Ports func(n int) ([]int, error)
	// LookPath finds a command as the processes' runner will; nil is
	// exec.LookPath.
	LookPath func(file string) (string, error)
}

// Replica is one replica to run.
type Replica struct {
	// Ref names it: worker-1.
	Ref supervise.Ref
	// Address is where it must listen, its entry in TF_CONFIG's cluster.
	Address string
	// Config of its supervision, validated.
	Config *supervise.Config
	// Command is its training container's command and args, with the
	// environment its pod would give it.
	Command supervise.Command
}

// Plan is a job ready to run here.
type Plan struct {
	// Job is the job's name.
	Job string
	// Replicas sorted by type, then index.
	Replicas []Replica
	// Warnings about what a local run leaves out, one per line.
	Warnings []string
}

// NewPlan lays out j on this machine. It fails, naming the replica type,
// when a training container has no command (sidecar mode: its image's
// entrypoint is unknown here) or its command is not installed.
func NewPlan(j *job.Job, o PlanOptions) (*Plan, error) {
	j, err := withCounts(j, o.Replicas)
	if err != nil {
		return nil, err
	}
	layout := values.Layout(j, job.Settings{})
	ports := o.Ports
	if ports == nil {
		ports = FreePorts
	}
	free, err := ports(int(layout.Total()))
	if err != nil {
		return nil, fmt.Errorf("choose ports on localhost: %w", err)
	}
	layout.Addresses = map[string][]string{}
	for _, r := range layout.Roles {
		for i := int32(0); i < r.Replicas; i++ {
			layout.Addresses[r.Type] = append(layout.Addresses[r.Type], "localhost:"+strconv.Itoa(free[0]))
			free = free[1:]
		}
	}
	ns := j.Namespace
	if ns == "" {
		ns = o.Namespace
	}
	if ns == "" {
		ns = "default"
	}
	environ := o.Environ
	if environ == nil {
		environ = os.Environ()
	}
	base, err := jobConfig(j, layout, ns)
	if err != nil {
		return nil, err
	}
	p := &Plan{Job: j.Name}
	var errs []error
	for _, t := range j.ReplicaTypes() {
		role, _ := layout.Role(t.Lower())
		rs, err := p.addType(j, t, role.Replicas, base, environ, o)
		errs = append(errs, err)
		p.Replicas = append(p.Replicas, rs...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if len(p.Replicas) == 0 {
		return nil, fmt.Errorf("job %s has no replicas to run", j.Name)
	}
	sort.SliceStable(p.Replicas, func(a, b int) bool { return p.Replicas[a].Ref.Type < p.Replicas[b].Ref.Type })
	if j.RunPolicy.Suspend != nil && *j.RunPolicy.Suspend {
		p.Warnings = append(p.Warnings, fmt.Sprintf("job %s is suspended (runPolicy.suspend); tfgen run runs it anyway", j.Name))
	}
	return p, nil
}

// withCounts returns j with the replica counts of counts (lowercase type
// to count), validated again; j itself is left as it was.
func withCounts(j *job.Job, counts map[string]int32) (*job.Job, error) {
	if len(counts) == 0 {
		return j, nil
	}
	c := *j
	specs := map[job.ReplicaType]*job.ReplicaSpec{}
	for t, s := range j.Replicas() {
		copied := *s
		specs[t] = &copied
	}
	if c.Framework() == job.MXNet {
		c.MXReplicaSpecs = specs
	} else {
		c.TFReplicaSpecs = specs
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(counts)) {
		n, found := counts[name], false
		for t, s := range specs {
			if t.Lower() == strings.ToLower(name) {
				s.Replicas, found = &n, true
			}
		}
		switch {
		case !found:
			var have []string
			for _, t := range c.ReplicaTypes() {
				have = append(have, t.Lower())
			}
			errs = append(errs, fmt.Errorf("--replicas %s=%d: job %s has no replica type %s (it has %s)", name, n, j.Name, name, strings.Join(have, ", ")))
		case n < 0:
			errs = append(errs, fmt.Errorf("--replicas %s=%d: the count must be 0 or more", name, n))
		}
	}
	if len(errs) == 0 {
		for _, e := range validate.Job(&c) {
			errs = append(errs, fmt.Errorf("with --replicas, %w", e))
		}
	}
	return &c, errors.Join(errs...)
}

// addType adds the n replicas of type t, or says why they cannot run here.
func (p *Plan) addType(j *job.Job, t job.ReplicaType, n int32, base supervise.Config, environ []string, o PlanOptions) ([]Replica, error) {
	spec := j.Replicas()[t]
	ps := &spec.Template.Spec
	ci := values.TrainingContainer(j.Framework(), ps)
	if ci < 0 {
		return nil, fmt.Errorf("replica type %s: the pod template has no containers", t)
	}
	c := &ps.Containers[ci]
	if len(c.Command) == 0 {
		return nil, fmt.Errorf("replica type %s: container %q has no command, so it would run its image's entrypoint, which tfgen run cannot know; "+
			"give the container a command, or map its image with --image-entrypoints", t, c.Name)
	}
	cfg := base
	if err := policy(&cfg, spec, o); err != nil {
		return nil, fmt.Errorf("replica type %s: %w", t, err)
	}
	if c.WorkingDir != "" {
		p.Warnings = append(p.Warnings, fmt.Sprintf("replica type %s: workingDir %s is a path in the image; the processes run in the current directory", t, c.WorkingDir))
	}
	var out []Replica
	for i := int32(0); i < n; i++ {
		ref := supervise.Ref{Type: t.Lower(), Index: i}
		pod := j.Name + "-" + ref.String()
		cenv, skipped := containerEnv(c, pod, cfg.Namespace)
		if i == 0 && len(skipped) > 0 {
			p.Warnings = append(p.Warnings, fmt.Sprintf("replica type %s: skipped %s: tfgen run resolves no cluster references", t, strings.Join(skipped, ", ")))
		}
		args := make([]string, 0, len(c.Command)+len(c.Args))
		for _, a := range append(append([]string(nil), c.Command...), c.Args...) {
			args = append(args, expand(a, cenv.lookup))
		}
		lookPath := o.LookPath
		if lookPath == nil {
			lookPath = exec.LookPath
		}
		if i == 0 {
			if _, err := lookPath(args[0]); err != nil {
				return nil, fmt.Errorf("replica type %s: command %q: %w; tfgen run runs the container's command on this machine, not in its image %s",
					t, args[0], unwrapExec(err), c.Image)
			}
		}
		vars, err := cfg.Layout.Env(ref.Type, i, cfg.Namespace)
		if err != nil {
			return nil, err
		}
		rc := cfg
		rc.Pod, rc.Self = pod, ref
		if err := rc.Validate(); err != nil {
			return nil, fmt.Errorf("replica %s: %w", ref, err)
		}
		out = append(out, Replica{Ref: ref, Address: cfg.Layout.Addresses[ref.Type][i], Config: &rc,
			Command: supervise.Command{Args: args, Env: processEnv(environ, cenv, vars)}})
	}
	return out, nil
}

// jobConfig returns the job-wide part of every replica's supervision: what
// the templates pass to tfsupervisor as job-wide flags (docs/contract.md).
func jobConfig(j *job.Job, l *cluster.Layout, ns string) (supervise.Config, error) {
	rp := j.RunPolicy
	c := supervise.Config{Job: j.Name, Namespace: ns, Layout: l, SuccessPolicy: string(j.SuccessPolicy), BackoffLimit: rp.BackoffLimit}
	var err error
	if c.CleanPodPolicy, err = supervise.ParseCleanPodPolicy(string(rp.CleanPodPolicy)); err != nil {
		return c, err
	}
	if rp.ActiveDeadlineSeconds != nil {
		c.ActiveDeadline = time.Duration(*rp.ActiveDeadlineSeconds) * time.Second
	}
	if rp.TTLSecondsAfterFinished != nil {
		ttl := time.Duration(*rp.TTLSecondsAfterFinished) * time.Second
		c.TTLAfterFinished = &ttl
	}
	if sr := j.SuccessReplica; sr != nil {
		c.SuccessReplica = &supervise.Ref{Type: sr.Type.Lower(), Index: sr.Index}
	}
	return c, nil
}

// policy sets the restart policy and grace period of replicas of spec:
// what the templates pass as per-type flags, with the local overrides.
func policy(c *supervise.Config, spec *job.ReplicaSpec, o PlanOptions) error {
	var err error
	if c.Policy.Restart, err = supervise.ParseRestartPolicy(string(spec.RestartPolicy)); err != nil {
		return err
	}
	if len(spec.RetryableExitCodes) > 0 {
		c.Policy.RetryableExitCodes = append([]int32(nil), spec.RetryableExitCodes...)
	}
	for _, code := range spec.RetryableExitCodes {
		if code < 0 || code > 255 {
			return fmt.Errorf("retryable exit code %d: want 0-255", code)
		}
	}
	c.Policy.MaxRestarts = spec.MaxRestarts
	c.Policy.Backoff = supervise.DefaultBackoff
	if o.Backoff != nil {
		c.Policy.Backoff = *o.Backoff
	}
	c.GracePeriod = 30 * time.Second
	if g := spec.Template.Spec.TerminationGracePeriodSeconds; g != nil {
		c.GracePeriod = time.Duration(*g) * time.Second
	}
	if o.GracePeriod > 0 {
		c.GracePeriod = o.GracePeriod
	}
	return nil
}

// unwrapExec drops exec's quoting of the name, already in the message.
func unwrapExec(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}

// FreePorts returns n distinct ports that were free on 127.0.0.1: it holds
// them all open at once, then lets them go for the replicas to bind.
func FreePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
