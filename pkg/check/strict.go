package check

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// strict checks that v, plain data (maps, slices, strings, bools, nil,
// int64, float64), decodes into a value of type t with no unknown field and
// no value of the wrong type. It is strict decoding without building the
// decoded value: it walks the data beside the type, so it is several times
// cheaper than runtime.DefaultUnstructuredConverter, and a test checks that
// the two agree. It returns every problem, sorted.
func strict(v any, t reflect.Type) []string {
	w := walker{}
	w.walk(v, t, "")
	sort.Strings(w.errs)
	return w.errs
}

type walker struct{ errs []string }

var (
	unmarshaler = reflect.TypeFor[json.Unmarshaler]()
	fieldsCache sync.Map // reflect.Type → map[string]reflect.Type
)

func (w *walker) fail(path, format string, args ...any) {
	if path == "" {
		path = "."
	}
	w.errs = append(w.errs, path+": "+fmt.Sprintf(format, args...))
}

func (w *walker) walk(v any, t reflect.Type, path string) {
	if v == nil {
		return
	}
	if reflect.PointerTo(t).Implements(unmarshaler) {
		w.custom(v, t, path)
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		w.walk(v, t.Elem(), path)
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			w.fail(path, "want an object, got %s", kind(v))
			return
		}
		fields := structFields(t)
		for k, e := range m {
			ft, ok := fields[k]
			if !ok {
				w.errs = append(w.errs, fmt.Sprintf("unknown field %q", join(path, k)))
				continue
			}
			w.walk(e, ft, join(path, k))
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok || t.Key().Kind() != reflect.String {
			w.fail(path, "want an object, got %s", kind(v))
			return
		}
		for k, e := range m {
			w.walk(e, t.Elem(), path+"["+k+"]")
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			s, ok := v.(string)
			if _, err := base64.StdEncoding.DecodeString(s); !ok || err != nil {
				w.fail(path, "want base64 data")
			}
			return
		}
		s, ok := v.([]any)
		if !ok {
			w.fail(path, "want a list, got %s", kind(v))
			return
		}
		for i, e := range s {
			w.walk(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			w.fail(path, "want a string, got %s", kind(v))
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			w.fail(path, "want a boolean, got %s", kind(v))
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := v.(int64)
		if f, isFloat := v.(float64); isFloat && f == float64(int64(f)) {
			n, ok = int64(f), true
		}
		switch {
		case !ok:
			w.fail(path, "want an integer, got %s", kind(v))
		case t.Kind() >= reflect.Uint && (n < 0 || reflect.Zero(t).OverflowUint(uint64(n))),
			t.Kind() < reflect.Uint && reflect.Zero(t).OverflowInt(n):
			w.fail(path, "%d does not fit in %s", n, t)
		}
	case reflect.Float32, reflect.Float64:
		switch v.(type) {
		case int64, float64:
		default:
			w.fail(path, "want a number, got %s", kind(v))
		}
	case reflect.Interface:
	default:
		w.fail(path, "cannot check a %s", t)
	}
}

// custom checks a type that decodes itself (Quantity, IntOrString, Time...)
// the way decoding does: through its UnmarshalJSON.
func (w *walker) custom(v any, t reflect.Type, path string) {
	b, err := json.Marshal(v)
	if err == nil {
		err = reflect.New(t).Interface().(json.Unmarshaler).UnmarshalJSON(b)
	}
	if err != nil {
		w.fail(path, "%v", err)
	}
}

// structFields maps the JSON names of t's fields, embedded ones included,
// to their types, as encoding/json (case-sensitively) sees them.
func structFields(t reflect.Type) map[string]reflect.Type {
	if f, ok := fieldsCache.Load(t); ok {
		return f.(map[string]reflect.Type)
	}
	fields := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported() && !f.Anonymous:
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			for k, ft := range structFields(f.Type) {
				fields[k] = ft
			}
		case name == "":
			fields[f.Name] = f.Type
		default:
			fields[name] = f.Type
		}
	}
	fieldsCache.Store(t, fields)
	return fields
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func kind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64, float64:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}
