package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"sort"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/input"
)

// Unknown is a field the target type does not have.
type Unknown struct {
	// Path is the field's full path.
	Path *field.Path
	// Suggestion is the known field the user probably meant, or "".
	Suggestion string
}

// String prints the field as the API server's field validation does:
// unknown field "spec.x" (did you mean "y"?).
func (u Unknown) String() string {
	s := "unknown field " + input.Quote(u.Path.String())
	if u.Suggestion != "" {
		s += fmt.Sprintf(" (did you mean %q?)", u.Suggestion)
	}
	return s
}

// Report is what Check found.
type Report struct {
	// Unknown lists the unknown fields in document order (keys sorted).
	Unknown []Unknown
	// Errs lists the values that cannot be decoded into their field.
	Errs field.ErrorList

	limits Limits
	// limit applies to the integer being checked.
	limit *Limit
	// at is where the value being checked stands in its parent; bad where
	// each value of Errs stands.
	at  slot
	bad []slot
}

// slot is where a value stands: member k of object m, or item i of list l.
type slot struct {
	m map[string]any
	k string
	l []any
	i int
}

// Prune takes every value that Errs reports out of the document Check
// walked, so that the rest decodes: an object's member is deleted, a
// list's item becomes null (an empty item: the items after it keep their
// indexes). It returns the function that puts them back.
func (r *Report) Prune() (restore func()) {
	old := make([]any, len(r.bad))
	for i, s := range r.bad {
		switch {
		case s.m != nil:
			old[i] = s.m[s.k]
			delete(s.m, s.k)
		case s.l != nil:
			old[i], s.l[s.i] = s.l[s.i], nil
		}
	}
	return func() {
		for i, s := range r.bad {
			switch {
			case s.m != nil:
				s.m[s.k] = old[i]
			case s.l != nil:
				s.l[s.i] = old[i]
			}
		}
	}
}

// invalid reports that the value being checked, at path, is of the wrong
// type or out of its type's range.
func (r *Report) invalid(path *field.Path, v any, detail string) {
	r.Errs = append(r.Errs, field.Invalid(path, v, detail))
	r.bad = append(r.bad, r.at)
}

// Limit is what to say of an integer field whose value its Go type cannot
// hold, where a narrower range than the type's holds for the field: the
// messages validation gives for values out of that range, so that 1e30
// and 10000000000 get the same one.
type Limit struct {
	// TooSmall and TooLarge are the problems of a value below the type's
	// range and above it.
	TooSmall, TooLarge string
}

// Limits returns the Limit of the field named name (its JSON name) of the
// struct type in, if it has one.
type Limits func(in reflect.Type, name string) (Limit, bool)

// Check walks v, a document decoded into generic values (map[string]any,
// []any, string, json.Number or float64, bool, nil), against type t, whose
// fields are named by their json tags as encoding/json names them, and
// reports unknown fields and type mismatches below path. limits, when not
// nil, words the problem of an integer its field's type cannot hold.
func Check(t reflect.Type, v any, path *field.Path, limits Limits) Report {
	r := Report{limits: limits}
	r.check(t, v, path)
	return r
}

var (
	unmarshaler = reflect.TypeFor[json.Unmarshaler]()
	rawMessage  = reflect.TypeFor[json.RawMessage]()
)

func (r *Report) check(t reflect.Type, v any, path *field.Path) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v == nil || t.Kind() == reflect.Interface || t == rawMessage {
		return
	}
	if reflect.PointerTo(t).Implements(unmarshaler) {
		r.custom(t, v, path)
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			r.mismatch(path, v, "an object")
			return
		}
		r.object(t, m, path)
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			r.mismatch(path, v, "an object")
			return
		}
		for _, k := range sortedKeys(m) {
			r.at = slot{m: m, k: k}
			r.check(t.Elem(), m[k], path.Key(k))
		}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			if _, ok := v.(string); !ok {
				r.mismatch(path, v, "a base64 string")
			}
			return
		}
		l, ok := v.([]any)
		if !ok {
			r.mismatch(path, v, "a list")
			return
		}
		for i, e := range l {
			if e == nil {
				// The API server would decode it as an empty item (a
				// container port 0, an env var with no name).
				r.Errs = append(r.Errs, field.Invalid(path.Index(i), nil, "a list item must not be null"))
				continue
			}
			r.at = slot{l: l, i: i}
			r.check(t.Elem(), e, path.Index(i))
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			r.mismatch(path, v, "a string")
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			r.mismatch(path, v, "a boolean (true or false)")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		r.integer(t, v, path, false)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		r.integer(t, v, path, true)
	case reflect.Float32, reflect.Float64:
		if _, ok := number(v); !ok {
			r.mismatch(path, v, "a number")
		}
	}
}

func (r *Report) object(t reflect.Type, m map[string]any, path *field.Path) {
	fields := fieldsOf(t)
	for _, k := range sortedKeys(m) {
		f, ok := fields.byName[k]
		if !ok {
			r.Unknown = append(r.Unknown, Unknown{Path: path.Child(k), Suggestion: Suggest(k, fields.names)})
			continue
		}
		r.limit = nil
		if r.limits != nil {
			if l, ok := r.limits(t, k); ok {
				r.limit = &l
			}
		}
		r.at = slot{m: m, k: k}
		r.check(f, m[k], path.Child(k))
		r.limit = nil
	}
}

// custom checks a value whose type decodes itself (quantities, int-or-string,
// times) by decoding it alone.
func (r *Report) custom(t reflect.Type, v any, path *field.Path) {
	b, err := json.Marshal(v)
	if err != nil {
		r.invalid(path, v, err.Error())
		return
	}
	if err := json.Unmarshal(b, reflect.New(t).Interface()); err != nil {
		msg := err.Error()
		if s, ok := v.(string); ok && len(s) > input.MaxQuote {
			msg = strings.ReplaceAll(msg, s, input.Excerpt(s)) // "parsing time "VALUE" as ..."
		}
		r.invalid(path, v, msg)
	}
}

func (r *Report) integer(t reflect.Type, v any, path *field.Path, unsigned bool) {
	f, ok := number(v)
	if !ok || f != math.Trunc(f) {
		r.mismatch(path, v, "an integer")
		return
	}
	bits := t.Bits()
	var msg string
	if unsigned {
		if n, exact := wholeNumber(v); (exact && n.Sign() < 0) || (!exact && f < 0) {
			msg = r.tooSmall(fmt.Sprintf("must be an integer between 0 and %d", uint64(math.MaxUint64)>>(64-bits)))
		} else if (exact && n.BitLen() > bits) || (!exact && f >= math.Ldexp(1, bits)) {
			msg = r.tooLarge(fmt.Sprintf("must be an integer between 0 and %d", uint64(math.MaxUint64)>>(64-bits)))
		}
	} else {
		lo, hi := int64(-1)<<(bits-1), int64(math.MaxInt64)>>(64-bits)
		inType := fmt.Sprintf("must be an integer between %d and %d", lo, hi)
		n, exact := wholeNumber(v)
		switch {
		case (exact && n.Cmp(big.NewInt(lo)) < 0) || (!exact && f < math.Ldexp(-1, bits-1)):
			msg = r.tooSmall(inType)
		case (exact && n.Cmp(big.NewInt(hi)) > 0) || (!exact && f >= math.Ldexp(1, bits-1)):
			msg = r.tooLarge(inType)
		}
	}
	if msg != "" {
		r.invalid(path, v, msg)
	}
}

// tooSmall and tooLarge return the problem of an integer below or above
// its type's range: the field's Limit's, else inType.
func (r *Report) tooSmall(inType string) string {
	if r.limit != nil && r.limit.TooSmall != "" {
		return r.limit.TooSmall
	}
	return inType
}

func (r *Report) tooLarge(inType string) string {
	if r.limit != nil && r.limit.TooLarge != "" {
		return r.limit.TooLarge
	}
	return inType
}

// wholeNumber returns v exactly when it is written as a whole number in
// decimal (9223372036854775808, which a float64 cannot tell from
// 9223372036854775807); not for 1e30 or 2.0, which number reads.
func wholeNumber(v any) (*big.Int, bool) {
	var s string
	switch n := v.(type) {
	case json.Number:
		s = n.String()
	case int64:
		return big.NewInt(n), true
	case int:
		return big.NewInt(int64(n)), true
	default:
		return nil, false
	}
	return new(big.Int).SetString(s, 10)
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	}
	return 0, false
}

func (r *Report) mismatch(path *field.Path, v any, want string) {
	r.invalid(path, v, "must be "+want)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// structFields are a struct's JSON fields, embedded structs flattened as
// encoding/json does.
type structFields struct {
	byName map[string]reflect.Type
	names  []string
}

var cache sync.Map // reflect.Type → *structFields

func fieldsOf(t reflect.Type) *structFields {
	if f, ok := cache.Load(t); ok {
		return f.(*structFields)
	}
	f := &structFields{byName: map[string]reflect.Type{}}
	collect(t, f)
	sort.Strings(f.names)
	cache.Store(t, f)
	return f
}

func collect(t reflect.Type, f *structFields) {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := sf.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if sf.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			collect(ft, f)
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if _, dup := f.byName[name]; !dup {
			f.names = append(f.names, name)
		}
		f.byName[name] = sf.Type
	}
}
