package localrun

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/render"
	"github.com/tfgen/tfgen/pkg/supervise"
	tfsupervisor "github.com/tfgen/tfgen/pkg/supervise/cli"
	"github.com/tfgen/tfgen/templates"
)

// supervision is how tfgen render has each replica type supervised: the
// tfsupervisor run flags of its training container, by lowercase type. A
// local run parses them as tfsupervisor does in the pod (one parser of the
// job's policy), so that it supervises each replica as its pod would.
type supervision map[string][]string

// renderSupervision renders j as tfgen render does by default and reads
// each StatefulSet's flags.
func renderSupervision(j *job.Job, excludeEvaluator bool) (supervision, error) {
	r, err := render.New(templates.FS)
	if err != nil {
		return nil, err
	}
	objs, err := r.Render(j, job.Settings{SupervisorImage: "tfsupervisor", ExcludeEvaluator: excludeEvaluator}, render.Capabilities{})
	if err != nil {
		return nil, fmt.Errorf("render job %s: %w", j.Name, err)
	}
	out := supervision{}
	for _, o := range objs {
		if o.Kind() != "StatefulSet" {
			continue
		}
		if flags, ok := runFlags(o); ok {
			out[strings.TrimPrefix(o.Name(), j.Name+"-")] = flags
		}
	}
	return out, nil
}

// config returns the supervision of replica pod of type t in namespace ns,
// as tfsupervisor run parses its flags.
func (s supervision) config(t, pod, ns string) (*supervise.Config, error) {
	flags, ok := s[t]
	if !ok {
		return nil, fmt.Errorf("replica type %s: tfgen render gives its training container no tfsupervisor run", t)
	}
	return tfsupervisor.ParseConfig(flags, pod, ns)
}

// policy returns the job's policy, which every replica's supervision and
// the keeper share, as tfsupervisor parses it in the job's first pod, with
// the local layout. A job whose training containers have no command has
// none here: its types cannot run (addType says why), and the policy only
// names the job.
func (s supervision) policy(j *job.Job, l *cluster.Layout, ns string) (*supervise.Job, error) {
	for _, t := range j.ReplicaTypes() {
		if _, ok := s[t.Lower()]; !ok {
			continue
		}
		c, err := s.config(t.Lower(), j.Name+"-"+t.Lower()+"-0", ns)
		if err != nil {
			return nil, err
		}
		c.Job.Layout = l
		return c.Job, nil
	}
	return &supervise.Job{Name: j.Name, Namespace: ns, Layout: l}, nil
}

// runFlags returns the flags of a StatefulSet's wrapped training
// container: its command between "run" and "--".
func runFlags(sts map[string]any) ([]string, bool) {
	containers, _ := dig(sts, "spec", "template", "spec", "containers").([]any)
	for _, c := range containers {
		m, _ := c.(map[string]any)
		raw, _ := m["command"].([]any)
		var cmd []string
		for _, a := range raw {
			s, _ := a.(string)
			cmd = append(cmd, s)
		}
		if len(cmd) > 2 && strings.HasPrefix(cmd[0], "/tfgen/bin/tfsupervisor") && cmd[1] == "run" {
			if end := slices.Index(cmd, "--"); end > 0 {
				return cmd[2:end], true
			}
		}
	}
	return nil, false
}

// dig returns the value at keys in nested maps, nil if there is none.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
