package validate

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/job"
)

// Kubernetes name limits that the names derived from a job must respect.
const (
	// MaxLabel is the length limit of a DNS label, and so of a Service
	// name, a pod's hostname and a label value.
	MaxLabel = validation.DNS1123LabelMaxLength // 63
	// MaxStatefulSetName is the longest StatefulSet name that works: the
	// controller labels each pod controller-revision-hash=NAME-HASH, HASH up
	// to 10 characters, and a label value may have 63, so 63-1-10 = 52.
	// (Its pods, NAME-ORDINAL, then fit too: an int32 ordinal has at most 10
	// digits.)
	MaxStatefulSetName = MaxLabel - 1 - 10
	// TensorBoardSuffix names the TensorBoard Deployment and Service.
	TensorBoardSuffix = "-tensorboard"
)

var metadataName = field.NewPath("metadata", "name")

// MaxNameLength returns the longest name j may have and the derived object
// that sets the limit: every label value holds the name (63); each
// replica type t has a StatefulSet J-t (52) and a Service J-t (63); the
// TensorBoard Service J-tensorboard (63).
func MaxNameLength(j *job.Job) (int, string) {
	limit, why := MaxLabel, "it is a label value on every object (at most 63 characters)"
	for _, t := range j.ReplicaTypes() {
		if n := MaxStatefulSetName - 1 - len(t.Lower()); n < limit {
			limit = n
			why = fmt.Sprintf("StatefulSet NAME-%s is limited to %d characters (its pods' controller-revision-hash label value, NAME-%s-HASH, must fit in %d)",
				t.Lower(), MaxStatefulSetName, t.Lower(), MaxLabel)
		}
	}
	if j.TensorBoard != nil {
		if n := MaxLabel - len(TensorBoardSuffix); n < limit {
			limit = n
			why = fmt.Sprintf("Service NAME%s is limited to %d characters", TensorBoardSuffix, MaxLabel)
		}
	}
	return limit, why
}

func name(j *job.Job) field.ErrorList {
	var errs field.ErrorList
	if j.Name == "" {
		errs = append(errs, field.Required(metadataName, "set metadata.name (or metadata.generateName)"))
	} else {
		if msgs := validation.IsDNS1035Label(j.Name); len(msgs) > 0 {
			errs = append(errs, field.Invalid(metadataName, j.Name, strings.Join(msgs, "; ")))
		}
		if limit, why := MaxNameLength(j); len(j.Name) > limit {
			errs = append(errs, field.Invalid(metadataName, j.Name, fmt.Sprintf("must be no more than %d characters (it has %d): %s", limit, len(j.Name), why)))
		}
	}
	if j.Namespace != "" {
		for _, msg := range validation.IsDNS1123Label(j.Namespace) {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "namespace"), j.Namespace, msg))
		}
	}
	return errs
}
