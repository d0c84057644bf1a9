package validate

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/values"
)

// downward are the variables tfsupervisor reads and tfgen sets from the
// downward API: a training container may define them only the same way.
var downward = map[string]string{"POD_NAME": "metadata.name", "POD_NAMESPACE": "metadata.namespace"}

// Env checks each training container's environment against what tfgen
// sets in it, for jobs that are rendered. POD_NAME and POD_NAMESPACE tell
// tfsupervisor which replica it runs: any other value than the downward
// API's would make it compute another replica's TF_CONFIG, or none.
// TF_CONFIG (or MX_CONFIG and DMLC_*) is tfgen's to set from the job's
// layout: a value of the user's would be silently replaced, so it is
// refused. It is apart from Job for callers that set the environment
// themselves (tfgen run's plan, for processes on localhost).
func Env(j *job.Job) field.ErrorList {
	var errs field.ErrorList
	for _, t := range j.ReplicaTypes() {
		if s := j.Replicas()[t]; s != nil {
			errs = append(errs, env(j, t, &s.Template.Spec)...)
		}
	}
	return errs
}

func env(j *job.Job, t job.ReplicaType, pod *corev1.PodSpec) field.ErrorList {
	c := job.TrainingContainer(pod, j.Framework())
	if c == nil {
		return nil
	}
	i := 0
	for k := range pod.Containers {
		if &pod.Containers[k] == c {
			i = k
		}
	}
	p := j.ReplicaFieldPath(t, "template").Child("spec", "containers").Index(i).Child("env")
	set := map[string]bool{}
	for _, n := range values.Layout(j, job.Settings{}).EnvNames(t.Lower()) {
		set[n] = true
	}
	var errs field.ErrorList
	for k, e := range c.Env {
		if fieldPath, ok := downward[e.Name]; ok && !fromField(e, fieldPath) {
			errs = append(errs, field.Invalid(p.Index(k), e.Name,
				fmt.Sprintf("tfsupervisor finds its replica by %s, so it may only come from the downward API (valueFrom.fieldRef.fieldPath: %s); leave it out and tfgen sets it", e.Name, fieldPath)))
		}
		if set[e.Name] {
			errs = append(errs, field.Forbidden(p.Index(k).Child("name"),
				fmt.Sprintf("tfgen sets %s in every replica from the job's layout; remove it", e.Name)))
		}
	}
	return errs
}

func fromField(e corev1.EnvVar, path string) bool {
	return e.Value == "" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == path &&
		e.ValueFrom.ResourceFieldRef == nil && e.ValueFrom.ConfigMapKeyRef == nil && e.ValueFrom.SecretKeyRef == nil
}
