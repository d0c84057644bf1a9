package tmplexec

import (
	"reflect"
)

// caller calls a function with its arguments as plain values.
type caller func(args []any) (any, error)

var errArg = unsupported("argument of another type")

// adapt returns a caller of fn. The signatures of sprig's and Helm's
// functions that charts call most are called directly; others through
// reflection. An argument that is not of the parameter's type, nil
// included (text/template tells a missing value from a nil one), is left
// to text/template.
func adapt(fn any) caller {
	switch f := fn.(type) {
	case func(string) string:
		return func(a []any) (any, error) {
			s, ok := a[0].(string)
			if !ok {
				return nil, errArg
			}
			return f(s), nil
		}
	case func(string, string) string:
		return func(a []any) (any, error) {
			s0, ok0 := a[0].(string)
			s1, ok1 := a[1].(string)
			if !ok0 || !ok1 {
				return nil, errArg
			}
			return f(s0, s1), nil
		}
	case func(string, string, string) string:
		return func(a []any) (any, error) {
			s0, ok0 := a[0].(string)
			s1, ok1 := a[1].(string)
			s2, ok2 := a[2].(string)
			if !ok0 || !ok1 || !ok2 {
				return nil, errArg
			}
			return f(s0, s1, s2), nil
		}
	case func(string, string) []string:
		return func(a []any) (any, error) {
			s0, ok0 := a[0].(string)
			s1, ok1 := a[1].(string)
			if !ok0 || !ok1 {
				return nil, errArg
			}
			return f(s0, s1), nil
		}
	case func(string, string) (bool, error):
		return func(a []any) (any, error) {
			s0, ok0 := a[0].(string)
			s1, ok1 := a[1].(string)
			if !ok0 || !ok1 {
				return nil, errArg
			}
			return f(s0, s1)
		}
	case func(string) (string, error):
		return func(a []any) (any, error) {
			s, ok := a[0].(string)
			if !ok {
				return nil, errArg
			}
			return f(s)
		}
	case func(string) int:
		return func(a []any) (any, error) {
			s, ok := a[0].(string)
			if !ok {
				return nil, errArg
			}
			return f(s), nil
		}
	case func(string, any) string:
		return func(a []any) (any, error) {
			s, ok := a[0].(string)
			if !ok {
				return nil, errArg
			}
			return f(s, a[1]), nil
		}
	case func(string, any) (any, error):
		return func(a []any) (any, error) {
			s, ok := a[0].(string)
			if !ok {
				return nil, errArg
			}
			return f(s, a[1])
		}
	case func(string, ...any) string:
		return func(a []any) (any, error) {
			s, ok := a[0].(string)
			if !ok {
				return nil, errArg
			}
			return f(s, a[1:]...), nil
		}
	case func(any) string:
		return func(a []any) (any, error) { return f(a[0]), nil }
	case func(any) bool:
		return func(a []any) (any, error) { return f(a[0]), nil }
	case func(any) int:
		return func(a []any) (any, error) { return f(a[0]), nil }
	case func(any) int64:
		return func(a []any) (any, error) { return f(a[0]), nil }
	case func(any) []string:
		return func(a []any) (any, error) { return f(a[0]), nil }
	case func(any, any) bool:
		return func(a []any) (any, error) { return f(a[0], a[1]), nil }
	case func(any, any) []any:
		return func(a []any) (any, error) { return f(a[0], a[1]), nil }
	case func(any, any, bool) any:
		return func(a []any) (any, error) {
			b, ok := a[2].(bool)
			if !ok {
				return nil, errArg
			}
			return f(a[0], a[1], b), nil
		}
	case func(any, ...any) any:
		return func(a []any) (any, error) { return f(a[0], a[1:]...), nil }
	case func(...any) string:
		return func(a []any) (any, error) { return f(a...), nil }
	case func(...any) any:
		return func(a []any) (any, error) { return f(a...), nil }
	case func(...any) int64:
		return func(a []any) (any, error) { return f(a...), nil }
	case func(...any) []any:
		return func(a []any) (any, error) { return f(a...), nil }
	case func(...any) map[string]any:
		return func(a []any) (any, error) { return f(a...), nil }
	case func(...any) (any, error):
		return func(a []any) (any, error) { return f(a...) }
	case func(map[string]any, string) any:
		return func(a []any) (any, error) {
			m, ok0 := a[0].(map[string]any)
			s, ok1 := a[1].(string)
			if !ok0 || !ok1 || m == nil {
				return nil, errArg
			}
			return f(m, s), nil
		}
	case func(map[string]any, string) bool:
		return func(a []any) (any, error) {
			m, ok0 := a[0].(map[string]any)
			s, ok1 := a[1].(string)
			if !ok0 || !ok1 || m == nil {
				return nil, errArg
			}
			return f(m, s), nil
		}
	case func(map[string]any, string, any) map[string]any:
		return func(a []any) (any, error) {
			m, ok0 := a[0].(map[string]any)
			s, ok1 := a[1].(string)
			if !ok0 || !ok1 || m == nil {
				return nil, errArg
			}
			return f(m, s, a[2]), nil
		}
	case func(map[string]any, ...string) map[string]any:
		return func(a []any) (any, error) {
			m, ok := a[0].(map[string]any)
			if !ok || m == nil {
				return nil, errArg
			}
			ss := make([]string, len(a)-1)
			for i, v := range a[1:] {
				if ss[i], ok = v.(string); !ok {
					return nil, errArg
				}
			}
			return f(m, ss...), nil
		}
	case func(map[string]any, ...map[string]any) any:
		return func(a []any) (any, error) {
			m, ok := a[0].(map[string]any)
			if !ok || m == nil {
				return nil, errArg
			}
			ms := make([]map[string]any, len(a)-1)
			for i, v := range a[1:] {
				if ms[i], ok = v.(map[string]any); !ok || ms[i] == nil {
					return nil, errArg
				}
			}
			return f(m, ms...), nil
		}
	case func(...map[string]any) []string:
		return func(a []any) (any, error) {
			ms := make([]map[string]any, len(a))
			for i, v := range a {
				var ok bool
				if ms[i], ok = v.(map[string]any); !ok || ms[i] == nil {
					return nil, errArg
				}
			}
			return f(ms...), nil
		}
	case func(int) []int:
		return func(a []any) (any, error) {
			n, ok := a[0].(int)
			if !ok {
				return nil, errArg
			}
			return f(n), nil
		}
	case func(int, int, int) []int:
		return func(a []any) (any, error) {
			n0, ok0 := a[0].(int)
			n1, ok1 := a[1].(int)
			n2, ok2 := a[2].(int)
			if !ok0 || !ok1 || !ok2 {
				return nil, errArg
			}
			return f(n0, n1, n2), nil
		}
	}
	return reflectCaller(reflect.ValueOf(fn))
}

// reflectCaller calls fn through reflection, with text/template's rules
// for what may be passed: a value assignable to the parameter; nil only
// for an interface.
func reflectCaller(fn reflect.Value) caller {
	ft := fn.Type()
	return func(a []any) (any, error) {
		in := make([]reflect.Value, len(a))
		for i, v := range a {
			pt := paramType(ft, i)
			if v == nil {
				if pt.Kind() != reflect.Interface {
					return nil, errArg
				}
				in[i] = reflect.Zero(pt)
				continue
			}
			rv := reflect.ValueOf(v)
			if !rv.Type().AssignableTo(pt) {
				return nil, errArg
			}
			in[i] = rv
		}
		out := fn.Call(in)
		if len(out) == 2 && !out[1].IsNil() {
			return nil, out[1].Interface().(error)
		}
		return out[0].Interface(), nil
	}
}
