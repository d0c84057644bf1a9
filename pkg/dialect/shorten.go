package dialect

import (
	"encoding/json"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/input"
)

// shortened returns errs with what each quotes of the input cut short: a
// bad value that would print longer than input.MaxQuote bytes (a string of
// a megabyte, a list nested ten thousand deep), a field path or a detail
// longer than input.MaxMessage. Each Error that prints its problems gets
// them from here, so that no problem prints a whole value, however large.
// The errors that need no cutting are returned as they are.
func shortened(errs field.ErrorList) field.ErrorList {
	var out field.ErrorList
	for i, fe := range errs {
		s := short(fe)
		if s != fe && out == nil {
			out = slices.Clone(errs)
		}
		if out != nil {
			out[i] = s
		}
	}
	if out == nil {
		return errs
	}
	return out
}

// short returns fe, or a copy of it cut short. A bad value too long to
// print is left out and its excerpt put at the start of the detail, where
// field.Error would have printed it: `Invalid value: [[[[… (200000 bytes):
// must be a string`.
func short(fe *field.Error) *field.Error {
	var value string
	long := false
	switch fe.Type {
	case field.ErrorTypeInvalid, field.ErrorTypeTypeInvalid, field.ErrorTypeNotSupported, field.ErrorTypeNotFound,
		field.ErrorTypeDuplicate, field.ErrorTypeTooMany, field.ErrorTypeTooFew:
		value, long = printedValue(fe.BadValue)
	}
	if !long && len(fe.Field) <= input.MaxMessage && len(fe.Detail) <= input.MaxMessage {
		return fe
	}
	c := *fe
	c.Field, c.Detail = input.Shorten(fe.Field), input.Shorten(fe.Detail)
	if long {
		c.BadValue = field.OmitValueType{}
		if c.Detail == "" {
			c.Detail = value
		} else {
			c.Detail = value + ": " + c.Detail
		}
	}
	return &c
}

// printedValue returns an excerpt of bad value v, printed as field.Error
// prints it, and true when the whole of it would be longer than
// input.MaxQuote bytes.
func printedValue(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return input.Quote(t), len(t) > input.MaxQuote
	case nil, bool, int32, int64, float32, float64, field.OmitValueType:
		return "", false
	case json.Number:
		return input.Excerpt(t.String()), len(t) > input.MaxQuote
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
		// A named string (a restart policy), printed as JSON: quoted.
		return input.Quote(rv.String()), rv.Len() > input.MaxQuote
	}
	b, err := json.Marshal(v)
	if err != nil || len(b) <= input.MaxQuote {
		return "", false
	}
	return input.Excerpt(string(b)), true
}
