package validate

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/input"
	"github.com/tfgen/tfgen/pkg/job"
)

// MaxSeconds is the longest duration tfsupervisor's flags hold, in seconds
// (job.MaxSeconds).
const MaxSeconds = job.MaxSeconds

// seconds checks a duration in seconds that tfsupervisor receives as a flag.
func seconds(p *field.Path, v int64, allowZero bool) field.ErrorList {
	switch {
	case v < 0 || (v == 0 && !allowZero):
		msg := job.SecondsNotPositive
		if allowZero {
			msg = job.SecondsNegative
		}
		return field.ErrorList{field.Invalid(p, v, msg)}
	case v > MaxSeconds:
		return field.ErrorList{field.Invalid(p, v, job.SecondsTooLong)}
	}
	return nil
}

// metadata checks the job's labels and annotations once, against the
// job's own fields: they are copied onto every object tfgen renders, where
// a bad one would otherwise be reported once per object.
func metadata(j *job.Job) field.ErrorList {
	p := field.NewPath("metadata")
	return append(labels(j.Labels, p.Child("labels")), annotations(j.Annotations, p.Child("annotations"))...)
}

// podMetadata checks a pod template's labels and annotations, which the
// API server checks only when the StatefulSet is applied.
func podMetadata(j *job.Job, t job.ReplicaType, s *job.ReplicaSpec) field.ErrorList {
	p := j.ReplicaFieldPath(t, "template").Child("metadata")
	return append(labels(s.Template.Labels, p.Child("labels")), annotations(s.Template.Annotations, p.Child("annotations"))...)
}

// labels checks label keys and values as the API server does, in key order.
func labels(m map[string]string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range slices.Sorted(maps.Keys(m)) {
		for _, msg := range validation.IsQualifiedName(k) {
			errs = append(errs, field.Invalid(p, k, msg))
		}
		for _, msg := range validation.IsValidLabelValue(m[k]) {
			errs = append(errs, field.Invalid(p.Key(k), m[k], msg))
		}
	}
	return errs
}

// annotations checks annotation keys and their total size (256 KiB) as the
// API server does, in key order.
func annotations(m map[string]string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range slices.Sorted(maps.Keys(m)) {
		for _, msg := range validation.IsQualifiedName(strings.ToLower(k)) {
			errs = append(errs, field.Invalid(p, k, msg))
		}
	}
	if err := apivalidation.ValidateAnnotationsSize(m); err != nil {
		errs = append(errs, field.TooLong(p, "", apivalidation.TotalAnnotationSizeLimitB))
	}
	return errs
}

// schedulingNames checks the names scheduling puts on pods and objects:
// the Kueue queue (a label value), the priority class and the scheduler
// name (DNS subdomains).
func schedulingNames(j *job.Job) field.ErrorList {
	var errs field.ErrorList
	sp := j.RunPolicy.SchedulingPolicy
	p := j.RunPolicyFieldPath("schedulingPolicy")
	if j.Kueue() {
		switch label, labelled := j.Labels[job.LabelKueueQueue]; {
		case sp == nil || sp.Queue == "":
			errs = append(errs, field.Required(p.Child("queue"), "gang scheduling with kueue needs the name of a LocalQueue"))
		case labelled && label != sp.Queue:
			errs = append(errs, field.Invalid(field.NewPath("metadata", "labels").Key(job.LabelKueueQueue), label,
				fmt.Sprintf("the job names two Kueue queues: this label and %s (%s); keep one", p.Child("queue"), input.Quote(sp.Queue))))
		default:
			for _, m := range validation.IsValidLabelValue(sp.Queue) {
				errs = append(errs, field.Invalid(p.Child("queue"), sp.Queue, "Kueue's queue-name label holds it: "+m))
			}
		}
	}
	if sp != nil && sp.PriorityClass != "" {
		for _, m := range validation.IsDNS1123Subdomain(sp.PriorityClass) {
			errs = append(errs, field.Invalid(p.Child("priorityClass"), sp.PriorityClass, m))
		}
	}
	if s := j.Scheduler; s != nil && s.SchedulerName != "" {
		for _, m := range validation.IsDNS1123Subdomain(s.SchedulerName) {
			errs = append(errs, field.Invalid(j.SpecFieldPath("schedulerName"), s.SchedulerName, m))
		}
	}
	return errs
}

// label checks an MXTune role label: it travels in tfsupervisor's --roles
// flag and in MX_CONFIG, so it must be one line of printable text.
func label(j *job.Job, t job.ReplicaType, s *job.ReplicaSpec) field.ErrorList {
	if strings.ContainsFunc(s.Label, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return field.ErrorList{field.Invalid(j.ReplicaFieldPath(t, "label"), s.Label, "must be printable text: no control characters or line breaks")}
	}
	return nil
}
