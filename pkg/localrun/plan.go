package localrun

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/supervise"
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
	// ExcludeEvaluator leaves the evaluator out of TF_CONFIG's cluster,
	// as tfgen render --exclude-evaluator does: the evaluator still runs.
	ExcludeEvaluator bool
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
	// Policy is the job's, which its keeper follows.
	Policy *supervise.Job
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
	layout := values.Layout(j, job.Settings{ExcludeEvaluator: o.ExcludeEvaluator})
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
	sup, err := renderSupervision(j, o.ExcludeEvaluator)
	if err != nil {
		return nil, err
	}
	policy, err := sup.policy(j, layout, ns)
	if err != nil {
		return nil, err
	}
	p := &Plan{Job: j.Name, Policy: policy}
	var errs []error
	for _, t := range j.ReplicaTypes() {
		role, _ := layout.Role(t.Lower())
		rs, err := p.addType(j, t, role.Replicas, environ, sup, o)
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

// addType adds the n replicas of type t, or says why they cannot run here.
func (p *Plan) addType(j *job.Job, t job.ReplicaType, n int32, environ []string, sup supervision, o PlanOptions) ([]Replica, error) {
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
	parsed, err := sup.config(t.Lower(), j.Name+"-"+t.Lower()+"-0", p.Policy.Namespace)
	if err != nil {
		return nil, fmt.Errorf("replica type %s: %w", t, err)
	}
	cfg := *parsed
	cfg.Job = p.Policy
	if o.Backoff != nil {
		cfg.Policy.Backoff = *o.Backoff
	}
	if o.GracePeriod > 0 {
		cfg.GracePeriod = o.GracePeriod
	}
	if c.WorkingDir != "" {
		p.Warnings = append(p.Warnings, fmt.Sprintf("replica type %s: workingDir %s is a path in the image; the processes run in the current directory", t, c.WorkingDir))
	}
	if len(c.VolumeMounts) > 0 {
		paths := make([]string, len(c.VolumeMounts))
		for k, m := range c.VolumeMounts {
			paths[k] = m.MountPath
		}
		p.Warnings = append(p.Warnings, fmt.Sprintf("replica type %s: volumeMounts %s are not provided; the processes see this machine's files at those paths",
			t, strings.Join(paths, ", ")))
	}
	var out []Replica
	for i := int32(0); i < n; i++ {
		ref := supervise.Ref{Type: t.Lower(), Index: i}
		pod := j.Name + "-" + ref.String()
		cenv, skipped := containerEnv(c, newPodMeta(j, t, i, pod, p.Policy.Namespace))
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
		vars, err := p.Policy.Layout.Env(ref.Type, i, p.Policy.Namespace)
		if err != nil {
			return nil, err
		}
		vars = append(vars, loopbackEnv(j.Framework())...)
		rc := cfg
		rc.Pod, rc.Self = pod, ref
		if err := rc.Validate(); err != nil {
			return nil, fmt.Errorf("replica %s: %w", ref, err)
		}
		out = append(out, Replica{Ref: ref, Address: p.Policy.Layout.Addresses[ref.Type][i], Config: &rc,
			Command: supervise.Command{Args: args, Env: processEnv(environ, cenv, vars)}})
	}
	return out, nil
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
