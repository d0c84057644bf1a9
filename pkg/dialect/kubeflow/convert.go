package kubeflow

import (
	"sort"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/dialect/internal/convert"
	"github.com/tfgen/tfgen/pkg/job"
)

// ConvertReplica converts the replica spec s, written under key at path,
// into r, after the dialect's defaults: the key names the type in any
// case; an unknown key is an error naming the supported ones. ExitCode replicas get retryable, when not nil,
// in place of the default exit-code rule. It returns the canonical spec, or
// nil when s could not be converted.
func ConvertReplica(c *convert.Context, r *convert.Replicas, f job.Framework, key string, s *ReplicaSpec, path *field.Path, retryable []int32) *job.ReplicaSpec {
	t, ok := convert.Normalize(f, key)
	if !ok {
		c.Error(field.NotSupported(path, key, convert.Types(f)))
		return nil
	}
	if s == nil {
		c.Error(field.Required(path, "a replica spec with a pod template"))
		return nil
	}
	spec := &job.ReplicaSpec{
		Replicas:      s.Replicas,
		RestartPolicy: job.RestartPolicy(s.RestartPolicy),
		Template:      s.Template,
	}
	if spec.RestartPolicy == job.RestartExitCode && retryable != nil {
		spec.RetryableExitCodes = append([]int32(nil), retryable...)
	}
	if !r.Add(c, t, key, spec, path, path) {
		return nil
	}
	r.SetPort(t, spec, path.Child("template"))
	c.WarnTemplateRestartPolicy(spec, path.Child("template"), path.Child("restartPolicy"))
	return spec
}

// ConvertRunPolicy merges the run policy written at the top of spec (flat,
// older specs) and in spec.runPolicy (nested, kubeflow.org/v1); a field set
// in both places with different values is an error. It records where each
// field was written in r and returns the policy with the path messages
// should use for it: spec.runPolicy when nested is set or flat is empty and
// nestedDefault, else spec.
func ConvertRunPolicy(c *convert.Context, r *convert.Replicas, flat *FlatRunPolicy, sched *FlatSchedulingPolicy, nested *RunPolicy, nestedDefault bool) (job.RunPolicy, *field.Path) {
	spec := field.NewPath("spec")
	rp := spec.Child("runPolicy")
	if flat == nil {
		flat = &FlatRunPolicy{}
	}
	if sched == nil {
		sched = &FlatSchedulingPolicy{}
	}
	n := nested
	if n == nil {
		n = &RunPolicy{}
	}
	var out job.RunPolicy
	if v, at := convert.OneOf(c, convert.Spelling[string]{Path: rp.Child("cleanPodPolicy"), Value: n.CleanPodPolicy},
		convert.Spelling[string]{Path: spec.Child("cleanPodPolicy"), Value: flat.CleanPodPolicy}); v != nil {
		out.CleanPodPolicy = job.CleanPodPolicy(*v)
		r.SetField("runPolicy.cleanPodPolicy", at)
	}
	var at *field.Path
	out.TTLSecondsAfterFinished, at = convert.OneOf(c, convert.Spelling[int32]{Path: rp.Child("ttlSecondsAfterFinished"), Value: n.TTLSecondsAfterFinished},
		convert.Spelling[int32]{Path: spec.Child("ttlSecondsAfterFinished"), Value: flat.TTLSecondsAfterFinished})
	record(r, "ttlSecondsAfterFinished", at)
	out.ActiveDeadlineSeconds, at = convert.OneOf(c, convert.Spelling[int64]{Path: rp.Child("activeDeadlineSeconds"), Value: n.ActiveDeadlineSeconds},
		convert.Spelling[int64]{Path: spec.Child("activeDeadlineSeconds"), Value: flat.ActiveDeadlineSeconds})
	record(r, "activeDeadlineSeconds", at)
	out.BackoffLimit, at = convert.OneOf(c, convert.Spelling[int32]{Path: rp.Child("backoffLimit"), Value: n.BackoffLimit},
		convert.Spelling[int32]{Path: spec.Child("backoffLimit"), Value: flat.BackoffLimit})
	record(r, "backoffLimit", at)
	sp := n.SchedulingPolicy
	switch {
	case sp != nil && sched.SchedulingPolicy != nil:
		c.Error(field.Forbidden(spec.Child("schedulingPolicy"), "spec.runPolicy.schedulingPolicy is also set; set only one"))
	case sp == nil && sched.SchedulingPolicy != nil:
		sp = sched.SchedulingPolicy
		record(r, "schedulingPolicy", spec.Child("schedulingPolicy"))
	}
	if sp != nil {
		out.SchedulingPolicy = &job.SchedulingPolicy{
			MinAvailable: sp.MinAvailable, Queue: sp.Queue, MinResources: sp.MinResources,
			PriorityClass: sp.PriorityClass, ScheduleTimeoutSeconds: sp.ScheduleTimeoutSeconds,
		}
	}
	out.Suspend, out.ManagedBy = n.Suspend, n.ManagedBy
	flatSet := *flat != (FlatRunPolicy{}) || sched.SchedulingPolicy != nil
	if nested != nil || (!flatSet && nestedDefault) {
		return out, rp
	}
	return out, spec
}

func record(r *convert.Replicas, name string, at *field.Path) {
	if at != nil {
		r.SetField("runPolicy."+name, at)
	}
}

// SortedKeys returns the keys of m in order, so that messages come out in
// the same order on every run.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
