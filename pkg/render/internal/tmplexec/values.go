package tmplexec

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"text/template/parse"
)

var (
	stringerType = reflect.TypeFor[fmt.Stringer]()
	errorType    = reflect.TypeFor[error]()
)

// printValue writes v as text/template prints the value of an action.
func printValue(w *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case nil:
		w.WriteString("<no value>")
	case string:
		w.WriteString(v)
	case int:
		w.Write(strconv.AppendInt(w.AvailableBuffer(), int64(v), 10))
	case int64:
		w.Write(strconv.AppendInt(w.AvailableBuffer(), v, 10))
	case bool:
		w.WriteString(strconv.FormatBool(v))
	default:
		t := reflect.TypeOf(v)
		switch t.Kind() {
		case reflect.Pointer, reflect.Chan, reflect.Func, reflect.UnsafePointer:
			return unsupported("print %T", v)
		}
		if !t.Implements(stringerType) && !t.Implements(errorType) &&
			(reflect.PointerTo(t).Implements(stringerType) || reflect.PointerTo(t).Implements(errorType)) {
			return unsupported("print %T", v)
		}
		fmt.Fprint(w, v)
	}
	return nil
}

// truth is text/template's isTrue for plain values.
func truth(v any) (t, ok bool) {
	switch v := v.(type) {
	case nil:
		return false, true
	case bool:
		return v, true
	case string:
		return v != "", true
	case int:
		return v != 0, true
	case int64:
		return v != 0, true
	case float64:
		return v != 0, true
	case map[string]any:
		return len(v) > 0, true
	case []any:
		return len(v) > 0, true
	case []string:
		return len(v) > 0, true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return rv.Len() > 0, true
	case reflect.Bool:
		return rv.Bool(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int() != 0, true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return rv.Uint() != 0, true
	case reflect.Float32, reflect.Float64:
		return rv.Float() != 0, true
	case reflect.Chan, reflect.Func, reflect.Pointer, reflect.Interface, reflect.UnsafePointer:
		return !rv.IsNil(), true
	case reflect.Struct:
		return true, true
	}
	return false, false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// literal returns the value text/template passes for constant n to a
// parameter of type typ.
func literal(n parse.Node, typ reflect.Type) (any, error) {
	if _, ok := n.(*parse.NilNode); ok {
		switch typ.Kind() {
		case reflect.Chan, reflect.Func, reflect.Interface, reflect.Map, reflect.Pointer, reflect.Slice:
			return reflect.Zero(typ).Interface(), nil
		}
		return nil, unsupported("nil for %s", typ)
	}
	switch typ.Kind() {
	case reflect.Interface:
		if typ.NumMethod() == 0 {
			switch n := n.(type) {
			case *parse.BoolNode:
				return n.True, nil
			case *parse.StringNode:
				return n.Text, nil
			case *parse.NumberNode:
				return idealConstant(n)
			}
		}
	case reflect.String:
		if n, ok := n.(*parse.StringNode); ok {
			return reflect.ValueOf(n.Text).Convert(typ).Interface(), nil
		}
	case reflect.Bool:
		if n, ok := n.(*parse.BoolNode); ok {
			return reflect.ValueOf(n.True).Convert(typ).Interface(), nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n, ok := n.(*parse.NumberNode); ok && n.IsInt {
			v := reflect.New(typ).Elem()
			v.SetInt(n.Int64)
			return v.Interface(), nil
		}
	case reflect.Float32, reflect.Float64:
		if n, ok := n.(*parse.NumberNode); ok && n.IsFloat {
			v := reflect.New(typ).Elem()
			v.SetFloat(n.Float64)
			return v.Interface(), nil
		}
	}
	return nil, unsupported("constant %s for %s", n, typ)
}

// idealConstant is the value of a number constant passed as any.
func idealConstant(n *parse.NumberNode) (any, error) {
	isHexInt := len(n.Text) > 2 && n.Text[0] == '0' && (n.Text[1] == 'x' || n.Text[1] == 'X') && !strings.ContainsAny(n.Text, "pP")
	isRuneInt := len(n.Text) > 0 && n.Text[0] == '\''
	switch {
	case n.IsComplex:
		return n.Complex128, nil
	case n.IsFloat && !isHexInt && !isRuneInt && strings.ContainsAny(n.Text, ".eEpP"):
		return n.Float64, nil
	case n.IsInt && int64(int(n.Int64)) == n.Int64:
		return int(n.Int64), nil
	}
	return nil, unsupported("constant %s", n.Text)
}

// Basic kinds of compared values.
const (
	nilKind = iota
	boolKind
	intKind
	floatKind
	stringKind
	otherKind
)

func basic(v any) (kind int, i int64, f float64, s string, b bool) {
	switch v := v.(type) {
	case nil:
		return nilKind, 0, 0, "", false
	case bool:
		return boolKind, 0, 0, "", v
	case int:
		return intKind, int64(v), 0, "", false
	case int64:
		return intKind, v, 0, "", false
	case int32:
		return intKind, int64(v), 0, "", false
	case float64:
		return floatKind, 0, v, "", false
	case string:
		return stringKind, 0, 0, v, false
	}
	return otherKind, 0, 0, "", false
}

// eq is text/template's eq for nil, booleans, integers, floats and
// strings; other values, and those it reports an error for, are left to
// text/template.
func eq(a any, bs ...any) (bool, error) {
	if len(bs) == 0 {
		return false, unsupported("eq with one argument")
	}
	ka, ia, fa, sa, ba := basic(a)
	if ka == otherKind {
		return false, unsupported("eq of %T", a)
	}
	for _, b := range bs {
		kb, ib, fb, sb, bb := basic(b)
		switch {
		case kb == otherKind:
			return false, unsupported("eq of %T", b)
		case ka != kb:
			if ka != nilKind && kb != nilKind {
				return false, unsupported("eq of %T and %T", a, b)
			}
		case ka == nilKind ||
			ka == boolKind && ba == bb ||
			ka == intKind && ia == ib ||
			ka == floatKind && fa == fb ||
			ka == stringKind && sa == sb:
			return true, nil
		}
	}
	return false, nil
}

// compare returns -1, 0 or 1 for integers, floats or strings of one kind.
func compare(a, b any) (int, error) {
	ka, ia, fa, sa, _ := basic(a)
	kb, ib, fb, sb, _ := basic(b)
	if ka != kb {
		return 0, unsupported("compare %T and %T", a, b)
	}
	switch ka {
	case intKind:
		return cmpOrdered(ia, ib), nil
	case floatKind:
		return cmpOrdered(fa, fb), nil
	case stringKind:
		return strings.Compare(sa, sb), nil
	}
	return 0, unsupported("compare %T", a)
}

func cmpOrdered[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func length(v any) (int, error) {
	switch v := v.(type) {
	case string:
		return len(v), nil
	case []any:
		return len(v), nil
	case map[string]any:
		return len(v), nil
	case []string:
		return len(v), nil
	case []int:
		return len(v), nil
	}
	return 0, unsupported("len of %T", v)
}

func index(item any, idx []any) (any, error) {
	for _, i := range idx {
		switch it := item.(type) {
		case []any:
			n, ok := i.(int)
			if !ok || n < 0 || n >= len(it) {
				return nil, unsupported("index %v", i)
			}
			item = it[n]
		case map[string]any:
			k, ok := i.(string)
			if !ok {
				return nil, unsupported("index %T", i)
			}
			item = it[k]
		default:
			return nil, unsupported("index of %T", item)
		}
	}
	return item, nil
}
