package t9k

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/dialect/internal/convert"
	"github.com/tfgen/tfgen/pkg/job"
)

// runMode applies the debug and pause modes to the converted replicas.
func runMode(c *convert.Context, r *convert.Replicas, j *job.Job, m *RunMode) {
	path := spec.Child("runMode")
	if d := m.Debug; d != nil && d.Enabled {
		debug(c, r, d, path.Child("debug"))
	}
	if p := m.Pause; p != nil {
		if p.Enabled {
			j.RunPolicy.Suspend = convert.Ptr(true)
			r.SetField("runPolicy.suspend", path.Child("pause", "enabled"))
		}
		if len(p.ResumeSpecs) > 0 {
			c.NoEffect(path.Child("pause", "resumeSpecs"), "a rendered job resumes when it is rendered again with spec.runMode.pause.enabled false, with the commands of its replica specs")
		}
	}
}

// debug replaces each replica's training command with its debug command
// (default `sleep inf`), so that the environment is deployed without
// training; skipInitContainer drops the user's init containers.
func debug(c *convert.Context, r *convert.Replicas, d *DebugMode, path *field.Path) {
	settings := map[job.ReplicaType]DebugReplicaSpec{}
	for i, ds := range d.ReplicaSpecs {
		p := path.Child("replicaSpecs").Index(i)
		t, ok := replicaType(c, ds.Type, p.Child("type"))
		if !ok {
			continue
		}
		if _, dup := settings[t]; dup {
			c.Error(field.Duplicate(p.Child("type"), ds.Type))
			continue
		}
		if r.Get(t) == nil {
			c.Warn("%s: the job has no %s replicas; ignored", p, ds.Type)
		}
		settings[t] = ds
	}
	for _, t := range r.Types() {
		ds, ok := settings[t]
		if !ok {
			ds = DebugReplicaSpec{Command: []string{"sleep", "inf"}}
		}
		s := r.Get(t)
		if ct := trainingContainer(s); ct != nil {
			ct.Command = append([]string(nil), ds.Command...)
			ct.Args = nil
		}
		if ds.SkipInitContainer {
			s.Template.Spec.InitContainers = nil
		}
	}
	c.Warn("%s: debug mode: the replicas run their debug commands instead of training", path.Child("enabled"))
}

// trainingContainer returns the container named tensorflow, else the only
// container, else nil.
func trainingContainer(s *job.ReplicaSpec) *corev1.Container {
	if c := job.TrainingContainer(&s.Template.Spec, job.TensorFlow); c != nil {
		return c
	}
	if cs := s.Template.Spec.Containers; len(cs) == 1 {
		return &cs[0]
	}
	return nil
}
