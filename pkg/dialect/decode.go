package dialect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/dialect/internal/convert"
	"github.com/tfgen/tfgen/pkg/input"
	"github.com/tfgen/tfgen/pkg/job"
)

// Options changes how documents are decoded.
type Options struct {
	// Strict makes unknown fields and duplicate YAML keys errors instead of
	// warnings.
	Strict bool
}

// Result is a decoded document.
type Result struct {
	// Job is the canonical job, defaulted; nil for a pass-through document
	// or when the document could not be read as a job at all. With a
	// conversion *Error it is the job as far as it converted, for
	// validation to report its further problems (see MergeErrors); it must
	// not be rendered.
	Job *job.Job
	// Passthrough is true for a document of a kind that is not a training
	// job: the caller writes it out unchanged.
	Passthrough bool
	// Warnings are ready to print, each prefixed like the lines of Error:
	// "FILE: KIND NAME: unknown field \"spec.x\"". They are set even when
	// Decode returns an error.
	Warnings []string
}

// Decode converts doc into a canonical job when its kind is a training job
// (see Supported), or reports it as pass-through. Malformed YAML is an
// *input.SyntaxError; every other problem in the document is reported at
// once as an *Error. The job is defaulted but not validated: call
// validate.Job.
func Decode(doc input.Document, opts Options) (Result, error) {
	data, err := doc.JSON()
	if err != nil {
		return Result{}, err
	}
	v, ok := doc.Value()
	if !ok {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return Result{}, &input.SyntaxError{File: doc.File, Line: doc.Line, Msg: err.Error(), Format: "JSON"}
		}
	}
	e := &Error{File: doc.File, Index: doc.Index, Line: doc.Line}
	obj, ok := v.(map[string]any)
	if !ok {
		e.Errs = field.ErrorList{{Type: field.ErrorTypeTypeInvalid, BadValue: kindOf(v),
			Detail: "a document must be an object with apiVersion and kind"}}
		return Result{}, e
	}
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	if !IsJobKind(kind) {
		// kubectl refuses an object without both; better said here, with
		// the document's place, than at apply.
		if errs := typeMeta(obj); len(errs) > 0 {
			if kind != "" {
				e.Kind, e.Name = kind, metaName(obj)
			}
			e.Errs = shortened(errs)
			return Result{}, e
		}
		return Result{Passthrough: true}, nil
	}
	e.Kind, e.Name = kind, metaName(obj)
	d, ok := lookup(apiVersion, kind)
	if !ok {
		e.Errs = shortened(field.ErrorList{unsupported(apiVersion, kind)})
		return Result{}, e
	}
	c := &convert.Context{APIVersion: apiVersion, Kind: kind, File: doc.File, Index: doc.Index, JSON: data, Object: obj, Strict: opts.Strict}
	if err := doc.DuplicateKeys(); err != nil {
		var se *input.SyntaxError
		if opts.Strict || !errors.As(err, &se) {
			return Result{}, err
		}
		c.Warn("line %d: %s (the last value is used)", se.Line, se.Msg)
	}
	j := decodeSafely(d, c)
	if j != nil && j.Name != "" {
		e.Name = j.Name
	}
	res := Result{Warnings: make([]string, len(c.Warnings))}
	for i, w := range c.Warnings {
		res.Warnings[i] = e.Prefix() + input.Shorten(w)
	}
	errs, pruned := withoutConsequences(c.Errs, c.Pruned)
	e.Errs, e.pruned = shortened(errs), pruned
	if j == nil {
		if len(e.Errs) == 0 {
			e.Errs = field.ErrorList{field.InternalError(field.NewPath("spec"), errors.New("the document could not be converted"))}
		}
		return res, e
	}
	job.SetDefaults(j)
	res.Job = j
	if len(e.Errs) > 0 {
		// The job comes back too, so that validation can add its own
		// problems and the user sees every one at once.
		return res, e
	}
	return res, nil
}

// decodeSafely runs a dialect's decoder, turning a panic (a bug) into an
// error instead of taking the whole run down.
func decodeSafely(d convert.Dialect, c *convert.Context) (j *job.Job) {
	defer func() {
		if r := recover(); r != nil {
			c.Error(field.InternalError(field.NewPath("spec"), fmt.Errorf("decoding %s %s failed: %v (please report this)", d.APIVersion, d.Kind, r)))
			j = nil
		}
	}()
	return d.Decode(c)
}

// unsupported reports a known kind in an apiVersion no dialect handles.
func unsupported(apiVersion, kind string) *field.Error {
	versions := families[strings.ToLower(kind)]
	path := field.NewPath("apiVersion")
	if apiVersion == "" {
		return field.Required(path, "tfgen reads "+kind+" from "+strings.Join(versions, ", "))
	}
	if groups[group(apiVersion)] {
		return field.NotSupported(path, apiVersion, versions)
	}
	return &field.Error{Type: field.ErrorTypeNotSupported, Field: path.String(), BadValue: apiVersion,
		Detail: fmt.Sprintf("%s from another project is not supported; tfgen reads %s from %s", kind, kind, strings.Join(versions, ", "))}
}

// typeMeta checks that a document to pass through names its apiVersion
// and kind, as strings.
func typeMeta(obj map[string]any) field.ErrorList {
	var errs field.ErrorList
	for _, k := range []string{"apiVersion", "kind"} {
		switch v := obj[k].(type) {
		case string:
			if v == "" {
				errs = append(errs, field.Required(field.NewPath(k), "every document needs apiVersion and kind"))
			}
		case nil:
			errs = append(errs, field.Required(field.NewPath(k), "every document needs apiVersion and kind"))
		default:
			errs = append(errs, field.Invalid(field.NewPath(k), v, "must be a string"))
		}
	}
	return errs
}

func metaName(obj map[string]any) string {
	m, _ := obj["metadata"].(map[string]any)
	if n, _ := m["name"].(string); n != "" {
		return n
	}
	return ""
}

func kindOf(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	case string:
		return "a string"
	case nil:
		return "null"
	}
	return "a scalar"
}
