package validate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/job"
)

// successWorkers checks successWorkers: a count of 1 up to the job's
// workers, or a percentage of 1-100%, in a TensorFlow job whose workers
// decide (no chief or master, no success replica, not AllWorkers).
func successWorkers(j *job.Job) field.ErrorList {
	sw := j.SuccessWorkers
	if sw == nil {
		return nil
	}
	p := j.SpecFieldPath("successWorkers")
	specs := j.Replicas()
	workers := specs[job.Worker].Count()
	var errs field.ErrorList
	switch {
	case j.Framework() == job.MXNet:
		errs = append(errs, field.Forbidden(p, "an MXNet job succeeds when its scheduler does"))
	case specs[job.Chief] != nil || specs[job.Master] != nil:
		errs = append(errs, field.Forbidden(p, "a job with a chief or master succeeds when it does; successWorkers is for jobs whose workers decide"))
	case j.SuccessPolicy == job.SuccessAllWorkers:
		errs = append(errs, field.Invalid(p, sw.String(), "successPolicy AllWorkers already asks for every worker; set one of the two"))
	case j.SuccessReplica != nil:
		errs = append(errs, field.Forbidden(p, "successReplica already names the replica that decides"))
	case specs[job.Worker] == nil:
		errs = append(errs, field.Invalid(p, sw.String(), "the job has no workers"))
	}
	if sw.Type == intstr.Int {
		if sw.IntVal < 1 || (specs[job.Worker] != nil && sw.IntVal > workers) {
			errs = append(errs, field.Invalid(p, sw.IntVal, fmt.Sprintf("must be a count from 1 to the number of workers (%d), or a percentage such as \"50%%\"", workers)))
		}
		return errs
	}
	num, pct := strings.CutSuffix(sw.StrVal, "%")
	if n, err := strconv.Atoi(num); !pct || err != nil || n < 1 || n > 100 {
		errs = append(errs, field.Invalid(p, sw.StrVal, "must be a count of workers, or a percentage from \"1%\" to \"100%\""))
	}
	return errs
}

// wrapped checks that every replica's training container has a command
// (wrap mode), which what needs says needs.
func wrapped(j *job.Job, needs string) field.ErrorList {
	var errs field.ErrorList
	for _, t := range j.ReplicaTypes() {
		pod := &j.Replicas()[t].Template.Spec
		c := job.TrainingContainer(pod, j.Framework())
		if c == nil || len(c.Command) > 0 {
			continue
		}
		i := 0
		for pod.Containers[i].Name != c.Name {
			i++
		}
		errs = append(errs, field.Required(j.ReplicaFieldPath(t, "template").Child("spec", "containers").Index(i).Child("command"),
			needs+", which tfsupervisor does only for a container with a command (wrap mode); give it one, or map its image with --image-entrypoints"))
	}
	return errs
}

// tfgenAnnotations checks the job annotations that choose tfgen's own
// behaviours.
func tfgenAnnotations(j *job.Job) field.ErrorList {
	p := field.NewPath("metadata", "annotations")
	var errs field.ErrorList
	if v, ok := j.Annotations[job.AnnotationEvaluatorGrace]; ok {
		if msg := job.CheckDuration(v); msg != "" {
			errs = append(errs, field.Invalid(p.Key(job.AnnotationEvaluatorGrace), v, msg))
		}
	}
	if v, ok := j.Annotations[job.AnnotationRestartScope]; ok {
		switch v {
		case "Replica":
		case "Job":
			errs = append(errs, wrapped(j, "restart scope Job ("+job.AnnotationRestartScope+") restarts training processes in place")...)
		default:
			errs = append(errs, field.NotSupported(p.Key(job.AnnotationRestartScope), v, []string{"Job", "Replica"}))
		}
	}
	if v, ok := j.Annotations[job.AnnotationElastic]; ok {
		switch v {
		case "none":
		case "dragon":
			errs = append(errs, elastic(j)...)
		default:
			errs = append(errs, field.NotSupported(p.Key(job.AnnotationElastic), v, []string{"dragon", "none"}))
		}
	}
	if v, ok := j.Annotations[job.AnnotationLocality]; ok && !slices.Contains(job.Localities, v) {
		errs = append(errs, field.NotSupported(p.Key(job.AnnotationLocality), v, job.Localities))
	}
	return errs
}

// elastic checks what an elastic job needs: workers, and wrap mode (a
// resize gives running replicas their new TF_CONFIG in place).
func elastic(j *job.Job) field.ErrorList {
	var errs field.ErrorList
	if _, ok := j.Replicas()[job.Worker]; !ok {
		errs = append(errs, field.Required(field.NewPath("metadata", "annotations").Key(job.AnnotationElastic), "an elastic job resizes its workers, and this one has none"))
	}
	if j.Kueue() {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "annotations").Key(job.AnnotationElastic), "dragon",
			"Kueue admits the job as one group of its rendered size, which DRAGON's strategy would change; under Kueue, use "+job.AnnotationElastic+": none (the default there)"))
	}
	return append(errs, wrapped(j, "an elastic job ("+job.AnnotationElastic+": dragon) gives running replicas a new TF_CONFIG in place")...)
}

// Elastic reports whether j resizes its workers at run time: its
// annotation says dragon, or it is a DRAGON job (min-instances or
// max-instances) in wrap mode without the annotation.
func Elastic(j *job.Job) bool {
	if v, ok := j.Annotations[job.AnnotationElastic]; ok {
		return v == "dragon"
	}
	_, workers := j.Replicas()[job.Worker]
	return (j.MinInstances != nil || j.MaxInstances != nil) && workers && !j.Kueue() && len(wrapped(j, "")) == 0
}
