package dialect

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/input"
	"github.com/tfgen/tfgen/pkg/job"
)

// Error is every problem found in one document.
type Error struct {
	// File and Index locate the document (File is input.Stdin for stdin);
	// Line is the line it starts on, when known.
	File  string
	Index int
	Line  int
	// Kind and Name of the job, as far as they could be read.
	Kind string
	Name string
	// Errs lists the problems, with paths in the user's dialect.
	Errs field.ErrorList

	// pruned are the fields of Errs whose values were of the wrong type
	// and left out of the job.
	pruned map[string]bool
}

// Error prints one problem per line:
//
//	FILE: KIND NAME: spec.tfReplicaSpecs[Chief].replicas: Invalid value: 2: a job has at most one chief
func (e *Error) Error() string {
	p := e.Prefix()
	lines := make([]string, len(e.Errs))
	for i, fe := range e.Errs {
		if fe.Field == "" {
			lines[i] = p + fe.ErrorBody()
		} else {
			lines[i] = p + fe.Error()
		}
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the problems, for errors.As.
func (e *Error) Unwrap() []error {
	out := make([]error, len(e.Errs))
	for i, fe := range e.Errs {
		out[i] = fe
	}
	return out
}

// Prefix is what starts each line of the error and each warning about the
// document: "FILE: KIND NAME: ", or "FILE:LINE: KIND: " when the job has no name.
func (e *Error) Prefix() string {
	file, kind := input.DisplayName(e.File), input.Excerpt(e.Kind)
	switch {
	case e.Name != "":
		return fmt.Sprintf("%s: %s %s: ", file, kind, input.Excerpt(e.Name))
	case e.Line > 0 && e.Kind != "":
		return fmt.Sprintf("%s:%d: %s: ", file, e.Line, kind)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: ", file, e.Line)
	}
	return file + ": "
}

// JobError returns errs about job j (from validate.Job, say) as an *Error
// located by j.Source, or nil when errs is empty.
func JobError(j *job.Job, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return &Error{File: j.Source.File, Index: j.Source.Index, Kind: j.Source.Kind, Name: j.Name, Errs: shortened(errs)}
}

// JobWarnings returns warnings about job j, each prefixed as the lines of
// its *Error are.
func JobWarnings(j *job.Job, warnings []string) []string {
	if len(warnings) == 0 {
		return nil
	}
	p := (&Error{File: j.Source.File, Index: j.Source.Index, Kind: j.Source.Kind, Name: j.Name}).Prefix()
	out := make([]string, len(warnings))
	for i, w := range warnings {
		out[i] = p + input.Shorten(w)
	}
	return out
}

// MergeErrors adds the validation problems errs of a partly converted job to
// its conversion error err (an *Error). A problem about a field related to
// one already reported (the same replica, a parent or a child) is left out:
// it is most likely a consequence of the first, such as a replica type that
// was dropped or a misspelt template. A value of the wrong type was only
// left out of the job, so beside it only its parents and children are
// related, and what refers to something of the same replica (a volume
// mount to a volume whose name was a number): the other problems of its
// replica are problems of their own.
func MergeErrors(err error, errs field.ErrorList) error {
	e, ok := err.(*Error)
	if !ok {
		return err
	}
	reported := e.Errs
	for _, fe := range shortened(errs) {
		if !e.relatedToAny(fe, reported) {
			e.Errs = append(e.Errs, fe)
		}
	}
	return e
}

func (e *Error) relatedToAny(fe *field.Error, errs field.ErrorList) bool {
	path := fe.Field
	for _, r := range errs {
		if within(path, r.Field) || within(r.Field, path) {
			return true
		}
		if sameRoot(path, r.Field) && (!e.pruned[r.Field] || fe.Type == field.ErrorTypeNotFound) {
			return true
		}
	}
	return false
}

// withoutConsequences returns errs without the problems that follow from
// a value of pruned being left out of the job (a field it was found
// missing, or a parent of it; never an internal error), and the fields of
// pruned.
func withoutConsequences(errs, pruned field.ErrorList) (field.ErrorList, map[string]bool) {
	if len(pruned) == 0 {
		return errs, nil
	}
	own := map[*field.Error]bool{}
	fields := map[string]bool{}
	for _, fe := range pruned {
		own[fe], fields[fe.Field] = true, true
	}
	var out field.ErrorList
	for _, fe := range errs {
		if own[fe] || fe.Type == field.ErrorTypeInternal || !slices.ContainsFunc(pruned, func(p *field.Error) bool {
			return within(fe.Field, p.Field) || within(p.Field, fe.Field)
		}) {
			out = append(out, fe)
		}
	}
	return out, fields
}

// within reports whether path is base or a field below it.
func within(path, base string) bool {
	return path == base || strings.HasPrefix(path, base+".") || strings.HasPrefix(path, base+"[")
}

// sameRoot reports whether both paths lie in the same keyed or indexed
// element: spec.tfReplicaSpecs[Worker].x and spec.tfReplicaSpecs[Worker].y.
func sameRoot(a, b string) bool {
	i := strings.IndexByte(a, ']')
	return i > 0 && len(b) > i && a[:i+1] == b[:i+1]
}
