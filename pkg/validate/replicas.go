package validate

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/job"
)

func replicas(j *job.Job) field.ErrorList {
	var errs field.ErrorList
	if len(j.TFReplicaSpecs) > 0 && len(j.MXReplicaSpecs) > 0 {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "mxReplicaSpecs"), "a job has tfReplicaSpecs or mxReplicaSpecs, not both"))
	}
	if len(j.Replicas()) == 0 {
		return append(errs, field.Required(j.ReplicasPath(), "at least one replica spec"))
	}
	allowed := allowedTypes(j)
	for _, t := range j.ReplicaTypes() {
		s := j.Replicas()[t]
		if !contains(allowed, t) {
			errs = append(errs, field.NotSupported(j.ReplicaPath(t), t, allowed))
			continue
		}
		if s == nil {
			errs = append(errs, field.Required(j.ReplicaPath(t), "a replica spec"))
			continue
		}
		errs = append(errs, replica(j, t, s)...)
	}
	errs = append(errs, leaders(j)...)
	return errs
}

func replica(j *job.Job, t job.ReplicaType, s *job.ReplicaSpec) field.ErrorList {
	var errs field.ErrorList
	if s.Count() < 0 {
		errs = append(errs, field.Invalid(j.ReplicaFieldPath(t, "replicas"), s.Count(), "must be greater than or equal to 0"))
	}
	if !contains(restartPolicies, s.RestartPolicy) {
		errs = append(errs, field.NotSupported(j.ReplicaFieldPath(t, "restartPolicy"), s.RestartPolicy, restartPolicies))
	}
	for i, code := range s.RetryableExitCodes {
		if code < 1 || code > 255 {
			errs = append(errs, field.Invalid(j.ReplicaFieldPath(t, "retryableExitCodes").Index(i), code, "must be between 1 and 255"))
		}
	}
	if s.MaxRestarts != nil && *s.MaxRestarts < 0 {
		errs = append(errs, field.Invalid(j.ReplicaFieldPath(t, "maxRestarts"), *s.MaxRestarts, "must be greater than or equal to 0"))
	}
	if s.Port != nil {
		for _, msg := range validation.IsValidPortNum(int(*s.Port)) {
			errs = append(errs, field.Invalid(j.ReplicaFieldPath(t, "port"), *s.Port, msg))
		}
	}
	if v := s.Template.Spec.TerminationGracePeriodSeconds; v != nil {
		errs = append(errs, seconds(j.ReplicaFieldPath(t, "template").Child("spec", "terminationGracePeriodSeconds"), *v, true)...)
	}
	errs = append(errs, label(j, t, s)...)
	errs = append(errs, podMetadata(j, t, s)...)
	errs = append(errs, containers(j, t, &s.Template.Spec)...)
	return append(errs, pod(j, t, s)...)
}

// containers checks that the pod has the framework's training container
// and that every container names an image.
func containers(j *job.Job, t job.ReplicaType, pod *corev1.PodSpec) field.ErrorList {
	var errs field.ErrorList
	p := j.ReplicaFieldPath(t, "template").Child("spec")
	name := j.Framework().ContainerName()
	if job.TrainingContainer(pod, j.Framework()) == nil {
		errs = append(errs, field.Required(p.Child("containers"), fmt.Sprintf("a container named %q, the training container", name)))
	}
	for i, c := range pod.InitContainers {
		if c.Image == "" {
			errs = append(errs, field.Required(p.Child("initContainers").Index(i).Child("image"), ""))
		}
	}
	for i, c := range pod.Containers {
		if c.Image == "" {
			errs = append(errs, field.Required(p.Child("containers").Index(i).Child("image"), ""))
		}
	}
	return errs
}

// leaders checks the replicas that lead the job: at most one chief or
// master, together; for MXNet exactly one scheduler in a dist job and at
// most one otherwise.
func leaders(j *job.Job) field.ErrorList {
	var errs field.ErrorList
	specs := j.Replicas()
	if j.Framework() == job.TensorFlow {
		chief, master := specs[job.Chief], specs[job.Master]
		switch {
		case chief != nil && master != nil && chief.Count()+master.Count() > 1:
			errs = append(errs, field.Forbidden(j.ReplicaPath(job.Master),
				fmt.Sprintf("a job has at most one chief or master, and %s is also set", j.ReplicaPath(job.Chief))))
		case chief.Count() > 1:
			errs = append(errs, field.Invalid(j.ReplicaFieldPath(job.Chief, "replicas"), chief.Count(), "a job has at most one chief"))
		case master.Count() > 1:
			errs = append(errs, field.Invalid(j.ReplicaFieldPath(job.Master, "replicas"), master.Count(), "a job has at most one master"))
		}
		return errs
	}
	sched := specs[job.Scheduler]
	switch {
	case j.JobMode == "dist" && sched == nil:
		errs = append(errs, field.Required(j.ReplicasPath(), "a dist MXNet job needs one Scheduler replica"))
	case j.JobMode == "dist" && sched.Count() != 1:
		errs = append(errs, field.Invalid(j.ReplicaFieldPath(job.Scheduler, "replicas"), sched.Count(), "a dist MXNet job has exactly one scheduler"))
	case sched.Count() > 1:
		errs = append(errs, field.Invalid(j.ReplicaFieldPath(job.Scheduler, "replicas"), sched.Count(), "a job has at most one scheduler"))
	}
	return errs
}

// instances checks DRAGON's bounds on the number of workers.
func instances(j *job.Job) field.ErrorList {
	lo, hi := j.MinInstances, j.MaxInstances
	if lo == nil && hi == nil {
		return nil
	}
	var errs field.ErrorList
	minPath, maxPath := j.SpecFieldPath("minInstances"), j.SpecFieldPath("maxInstances")
	if lo != nil && *lo < 1 {
		errs = append(errs, field.Invalid(minPath, *lo, "must be at least 1"))
	}
	if hi != nil && *hi < 1 {
		errs = append(errs, field.Invalid(maxPath, *hi, "must be at least 1"))
	}
	if lo != nil && hi != nil && *lo > *hi {
		errs = append(errs, field.Invalid(minPath, *lo, fmt.Sprintf("must be no more than %s (%d)", maxPath, *hi)))
	}
	w := j.Replicas()[job.Worker]
	if w == nil {
		return append(errs, field.Required(j.ReplicasPath().Key(string(job.Worker)), fmt.Sprintf("%s and %s bound the number of workers, and the job has none", minPath, maxPath)))
	}
	n := w.Count()
	if (lo != nil && n < *lo) || (hi != nil && n > *hi) {
		errs = append(errs, field.Invalid(j.ReplicaFieldPath(job.Worker, "replicas"), n, "must be between "+bounds(minPath, lo, maxPath, hi)))
	}
	return errs
}

func bounds(minPath *field.Path, lo *int32, maxPath *field.Path, hi *int32) string {
	s := func(p *field.Path, v *int32, none string) string {
		if v == nil {
			return none
		}
		return fmt.Sprintf("%s (%d)", p, *v)
	}
	return s(minPath, lo, "0") + " and " + s(maxPath, hi, "any number")
}
