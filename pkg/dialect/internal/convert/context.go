package convert

import (
	"encoding/json"
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"

	"github.com/tfgen/tfgen/pkg/dialect/internal/schema"
	"github.com/tfgen/tfgen/pkg/input"
	"github.com/tfgen/tfgen/pkg/job"
)

// Dialect is one apiVersion and kind family that tfgen decodes.
type Dialect struct {
	// APIVersion is group/version, e.g. kubeflow.org/v1.
	APIVersion string
	// Kind as its project spelled it (TFJob, TfJob, MXJob); documents match
	// it in any case, so TfJob and TFJob, MxJob and MXJob are the same kind.
	Kind string
	// Decode converts the document of c into a canonical job, reporting
	// problems on c; it returns nil when the document cannot be converted.
	Decode func(c *Context) *job.Job
}

// Context is one document being decoded.
type Context struct {
	// APIVersion and Kind as the document spells them.
	APIVersion, Kind string
	// File and Index locate the document.
	File  string
	Index int
	// JSON is the document as JSON; Object the same decoded generically
	// (numbers as json.Number).
	JSON   []byte
	Object map[string]any
	// Strict makes unknown fields errors instead of warnings.
	Strict bool

	// Errs and Warnings collect what decoding found.
	Errs     field.ErrorList
	Warnings []string
	// Pruned are the values of Errs of the wrong type, which Decode left
	// out of the job.
	Pruned field.ErrorList
}

// Decode checks the document against obj's type, reporting every unknown
// field (an error when Strict, else a warning) and every value of the wrong
// type, then decodes it into obj, matching field names case-sensitively as
// the API server does. It reports whether obj was decoded. Values of the
// wrong type are left out (see Pruned), so that the job converts and
// validation can report the problems of the rest of it.
func (c *Context) Decode(obj any) bool {
	r := schema.Check(reflect.TypeOf(obj), c.Object, nil, limits)
	for _, u := range r.Unknown {
		if c.Strict {
			detail := "unknown field"
			if u.Suggestion != "" {
				detail += fmt.Sprintf(" (did you mean %q?)", u.Suggestion)
			}
			c.Errs = append(c.Errs, field.Forbidden(u.Path, detail))
		} else {
			c.Warnings = append(c.Warnings, u.String())
		}
	}
	c.Errs = append(c.Errs, r.Errs...)
	data := c.JSON
	if len(r.Errs) > 0 {
		c.Pruned = append(c.Pruned, r.Errs...)
		restore := r.Prune()
		var err error
		data, err = json.Marshal(c.Object)
		restore()
		if err != nil {
			return false
		}
	}
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, obj); err != nil {
		c.Errs = append(c.Errs, field.Invalid(field.NewPath("spec"), "", err.Error()))
		return false
	}
	return true
}

// podSpec is the type of a pod template's spec.
var podSpec = reflect.TypeFor[corev1.PodSpec]()

// limits words the problem of a duration in seconds too large for an
// int64 as validation words one too large for tfsupervisor: a job's
// activeDeadlineSeconds (in any dialect's type, not a pod's, which
// validation forbids) and a pod template's terminationGracePeriodSeconds.
func limits(in reflect.Type, name string) (schema.Limit, bool) {
	switch {
	case in == podSpec && name == "terminationGracePeriodSeconds":
		return schema.Limit{TooSmall: job.SecondsNegative, TooLarge: job.SecondsTooLong}, true
	case in.PkgPath() != podSpec.PkgPath() && name == "activeDeadlineSeconds":
		return schema.Limit{TooSmall: job.SecondsNotPositive, TooLarge: job.SecondsTooLong}, true
	}
	return schema.Limit{}, false
}

// Error records a problem.
func (c *Context) Error(errs ...*field.Error) { c.Errs = append(c.Errs, errs...) }

// Warn records a warning.
func (c *Context) Warn(format string, args ...any) {
	c.Warnings = append(c.Warnings, fmt.Sprintf(format, args...))
}

// NoEffect warns that the field at path is accepted but changes nothing,
// and why.
func (c *Context) NoEffect(path *field.Path, why string) {
	c.Warn("%s is accepted but has no effect: %s", path, why)
}

// Source returns the job.Source of the document, with paths p.
func (c *Context) Source(p job.Paths) job.Source {
	return job.Source{APIVersion: c.APIVersion, Kind: c.Kind, File: c.File, Index: c.Index, Paths: p}
}

// OneOf returns the value of the first of the spellings the user set and
// its path, reporting an error when several are set and disagree. Each
// spelling is a (path, value) pair; a nil value is unset.
func OneOf[T comparable](c *Context, spellings ...Spelling[T]) (*T, *field.Path) {
	var got *T
	var at *field.Path
	for _, s := range spellings {
		if s.Value == nil {
			continue
		}
		if got == nil {
			got, at = s.Value, s.Path
			continue
		}
		if *s.Value != *got {
			c.Error(field.Invalid(s.Path, *s.Value, fmt.Sprintf("disagrees with %s (%s); set only one", at, input.Excerpt(fmt.Sprint(*got)))))
		}
	}
	return got, at
}

// Spelling is one way a field may be written.
type Spelling[T comparable] struct {
	Path  *field.Path
	Value *T
}
