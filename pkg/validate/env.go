package validate

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/values"
)

// ownVariables are the variables tfgen renders from the downward API for
// its own use, and what they are for.
var ownVariables = map[string]string{
	"TFGEN_POD_NAME":      "tfsupervisor finds its replica by it",
	"TFGEN_POD_NAMESPACE": "tfsupervisor finds its replica by it, and a sidecar-mode TF_CONFIG is expanded from it",
	"TFGEN_POD_INDEX":     "a sidecar-mode TF_CONFIG is expanded from it",
}

// Env checks each training container's environment against what tfgen
// sets in it, for jobs that are rendered: a training container may not
// define tfgen's own variables (ownVariables). POD_NAME and POD_NAMESPACE
// are the user's to define as they like. It is apart from Job for callers
// that set the environment themselves (tfgen run's plan, for processes on
// localhost).
func Env(j *job.Job) field.ErrorList {
	var errs field.ErrorList
	eachEnv(j, func(t job.ReplicaType, p *field.Path, e corev1.EnvVar) {
		if why, ok := ownVariables[e.Name]; ok {
			errs = append(errs, field.Forbidden(p.Child("name"), fmt.Sprintf("tfgen sets %s from the downward API: %s; remove it", e.Name, why)))
		}
	})
	return errs
}

// EnvReplaced returns a warning for each variable of the cluster env
// (TF_CONFIG, or MX_CONFIG and DMLC_*) that a training container defines
// where tfgen sets it: the templates leave the user's out and tfgen's
// replaces it, as Kubeflow's operator's did (it appended its own after the
// user's, and the last definition wins).
func EnvReplaced(j *job.Job) []string {
	var warnings []string
	layout := values.Layout(j, job.Settings{})
	eachEnv(j, func(t job.ReplicaType, p *field.Path, e corev1.EnvVar) {
		for _, n := range layout.EnvNames(t.Lower()) {
			if e.Name == n {
				warnings = append(warnings, fmt.Sprintf("%s: %s is replaced: tfgen sets it in every replica from the job's layout, as Kubeflow's operator did",
					p, e.Name))
			}
		}
	})
	return warnings
}

// eachEnv calls f with every env var of every training container and its
// path.
func eachEnv(j *job.Job, f func(job.ReplicaType, *field.Path, corev1.EnvVar)) {
	for _, t := range j.ReplicaTypes() {
		s := j.Replicas()[t]
		if s == nil {
			continue
		}
		pod := &s.Template.Spec
		c := job.TrainingContainer(pod, j.Framework())
		if c == nil {
			continue
		}
		i := 0
		for k := range pod.Containers {
			if &pod.Containers[k] == c {
				i = k
			}
		}
		p := j.ReplicaFieldPath(t, "template").Child("spec", "containers").Index(i).Child("env")
		for k, e := range c.Env {
			f(t, p.Index(k), e)
		}
	}
}
