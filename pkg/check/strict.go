package check

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// strict checks that v, plain data (maps, slices, strings, bools, nil,
// int64, float64), decodes into a value of type t with no unknown field and
// no value of the wrong type. It is strict decoding without building the
// decoded value: it walks the data beside the type, so it is several times
// cheaper than runtime.DefaultUnstructuredConverter, and a test checks that
// the two agree. It returns every problem, sorted.
func strict(v any, t reflect.Type) []string {
	w := walker{steps: make([]step, 0, 16)}
	w.walk(v, nodeOf(t))
	sort.Strings(w.errs)
	return w.errs
}

// walker collects problems; the path to the value being walked is kept as a
// stack of steps and spelled out only for a problem.
type walker struct {
	errs  []string
	steps []step
}

// step is a field name, a map key ([key]) or a list index ([i]).
type step struct {
	name  string
	index int
	kind  byte // '.', 'k' (map key) or 'i' (index)
}

func (w *walker) path() string {
	var b strings.Builder
	for _, s := range w.steps {
		switch s.kind {
		case '.':
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.name)
		case 'k':
			b.WriteString("[" + s.name + "]")
		default:
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
		}
	}
	return b.String()
}

func (w *walker) push(s step) { w.steps = append(w.steps, s) }
func (w *walker) pop()        { w.steps = w.steps[:len(w.steps)-1] }

// node is what strict needs to know about a Go type, computed once per type
// (the walk itself then needs no reflection, except for custom types).
type node struct {
	kind reflect.Kind
	typ  reflect.Type
	// custom types (Quantity, IntOrString, Time...) decode themselves.
	custom bool
	// elem is the node of a pointer's, map's or slice's element.
	elem *node
	// fields of a struct by JSON name, embedded structs' included.
	fields map[string]*node
}

var (
	unmarshaler = reflect.TypeFor[json.Unmarshaler]()
	nodesMu     sync.Mutex
	nodes       = map[reflect.Type]*node{}
)

// nodeOf returns the node of t, building the nodes it needs under the lock.
func nodeOf(t reflect.Type) *node {
	nodesMu.Lock()
	defer nodesMu.Unlock()
	return build(t)
}

func build(t reflect.Type) *node {
	if n, ok := nodes[t]; ok {
		return n
	}
	n := &node{kind: t.Kind(), typ: t, custom: reflect.PointerTo(t).Implements(unmarshaler)}
	nodes[t] = n // before the fields: types may refer to themselves
	switch {
	case n.custom:
	case n.kind == reflect.Pointer, n.kind == reflect.Map, n.kind == reflect.Slice:
		n.elem = build(t.Elem())
	case n.kind == reflect.Struct:
		n.fields = map[string]*node{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case name == "-" || !f.IsExported() && !f.Anonymous:
			case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
				for k, fn := range build(f.Type).fields {
					n.fields[k] = fn
				}
			case name == "":
				n.fields[f.Name] = build(f.Type)
			default:
				n.fields[name] = build(f.Type)
			}
		}
	}
	return n
}

func (w *walker) fail(format string, args ...any) {
	path := w.path()
	if path == "" {
		path = "."
	}
	w.errs = append(w.errs, path+": "+fmt.Sprintf(format, args...))
}

func (w *walker) walk(v any, n *node) {
	if v == nil {
		return
	}
	if n.custom {
		w.custom(v, n.typ)
		return
	}
	switch n.kind {
	case reflect.Pointer:
		w.walk(v, n.elem)
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			w.fail("want an object, got %s", kind(v))
			return
		}
		for k, e := range m {
			fn, ok := n.fields[k]
			w.push(step{name: k, kind: '.'})
			if ok {
				w.walk(e, fn)
			} else {
				w.errs = append(w.errs, fmt.Sprintf("unknown field %q", w.path()))
			}
			w.pop()
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok || n.typ.Key().Kind() != reflect.String {
			w.fail("want an object, got %s", kind(v))
			return
		}
		for k, e := range m {
			w.push(step{name: k, kind: 'k'})
			w.walk(e, n.elem)
			w.pop()
		}
	case reflect.Slice:
		if n.elem.kind == reflect.Uint8 {
			s, ok := v.(string)
			if _, err := base64.StdEncoding.DecodeString(s); !ok || err != nil {
				w.fail("want base64 data")
			}
			return
		}
		s, ok := v.([]any)
		if !ok {
			w.fail("want a list, got %s", kind(v))
			return
		}
		for i, e := range s {
			w.push(step{index: i, kind: 'i'})
			w.walk(e, n.elem)
			w.pop()
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			w.fail("want a string, got %s", kind(v))
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			w.fail("want a boolean, got %s", kind(v))
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		w.integer(v, n.typ)
	case reflect.Float32, reflect.Float64:
		switch v.(type) {
		case int64, float64:
		default:
			w.fail("want a number, got %s", kind(v))
		}
	case reflect.Interface:
	default:
		w.fail("cannot check a %s", n.typ)
	}
}

func (w *walker) integer(v any, t reflect.Type) {
	n, ok := v.(int64)
	if f, isFloat := v.(float64); isFloat && f == float64(int64(f)) {
		n, ok = int64(f), true
	}
	switch {
	case !ok:
		w.fail("want an integer, got %s", kind(v))
	case t.Kind() >= reflect.Uint && (n < 0 || reflect.Zero(t).OverflowUint(uint64(n))),
		t.Kind() < reflect.Uint && reflect.Zero(t).OverflowInt(n):
		w.fail("%d does not fit in %s", n, t)
	}
}

// custom checks a type that decodes itself (Quantity, IntOrString, Time...)
// the way decoding does: through its UnmarshalJSON.
func (w *walker) custom(v any, t reflect.Type) {
	if err := decodeCustom(v, t); err != nil {
		w.fail("%v", err)
	}
}

// maxCustomCache bounds the answers decodeCustom keeps.
const maxCustomCache = 4096

var (
	customCache sync.Map // customKey -> error (nil for none)
	customSize  atomic.Int32
)

type customKey struct {
	t reflect.Type
	s string
}

// decodeCustom decodes v into a new value of type t. The answers for
// strings are kept: jobs repeat the same quantities ("64Mi", "10m")
// object after object.
func decodeCustom(v any, t reflect.Type) error {
	s, isString := v.(string)
	if isString {
		if err, ok := customCache.Load(customKey{t, s}); ok {
			err, _ := err.(error)
			return err
		}
	}
	b, err := json.Marshal(v)
	if err == nil {
		err = reflect.New(t).Interface().(json.Unmarshaler).UnmarshalJSON(b)
	}
	if isString && customSize.Add(1) <= maxCustomCache {
		customCache.Store(customKey{t, s}, err)
	}
	return err
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
