package tmplexec

import (
	"bytes"
	"fmt"
	"reflect"
	"sync"
	"text/template/parse"
)

// call compiles a call of function name with args, followed by the
// previous command's value when hasFinal. The set's functions come
// first, then text/template's builtins, as text/template looks them up.
func (c *compiler) call(name string, args []parse.Node, hasFinal bool) command {
	if name == c.set.include {
		return c.includeCall(args, hasFinal)
	}
	if fn, ok := c.set.funcs[name]; ok {
		return c.funcCall(fn, args, hasFinal)
	}
	switch name {
	case "print":
		return c.funcCall(fmt.Sprint, args, hasFinal)
	case "printf":
		return c.funcCall(fmt.Sprintf, args, hasFinal)
	case "println":
		return c.funcCall(fmt.Sprintln, args, hasFinal)
	}
	n := len(args)
	if hasFinal {
		n++
	}
	for _, a := range args {
		if _, ok := a.(*parse.NilNode); ok {
			return failCommand(unsupported("nil argument to %s", name))
		}
	}
	argv := make([]evaler, len(args))
	for i, a := range args {
		argv[i] = c.operand(a)
	}
	// values evaluates every argument, for the builtins but and and or,
	// which keep none: on the state's argument stack, which the caller
	// pops back to base.
	values := func(st *state, dot, final any) (vs []any, base int, err error) {
		vs, base = st.push(n)
		for i, e := range argv {
			if vs[i], err = e(st, dot); err != nil {
				return nil, base, err
			}
		}
		if hasFinal {
			vs[n-1] = final
		}
		return vs, base, nil
	}
	switch name {
	case "and", "or":
		if n == 0 {
			break
		}
		or := name == "or"
		return func(st *state, dot, final any) (any, error) {
			var v any
			for _, e := range argv {
				var err error
				if v, err = e(st, dot); err != nil {
					return nil, err
				}
				t, ok := truth(v)
				if !ok {
					return nil, unsupported("%s of %T", name, v)
				}
				if t == or {
					return v, nil
				}
			}
			if hasFinal {
				v = final
			}
			return v, nil
		}
	case "not":
		if n != 1 {
			break
		}
		return func(st *state, dot, final any) (any, error) {
			vs, base, err := values(st, dot, final)
			defer st.pop(base)
			if err != nil {
				return nil, err
			}
			t, ok := truth(vs[0])
			if !ok {
				return nil, unsupported("not of %T", vs[0])
			}
			return !t, nil
		}
	case "eq", "ne", "lt", "le", "gt", "ge":
		if n < 2 || n > 2 && name != "eq" {
			break
		}
		return func(st *state, dot, final any) (any, error) {
			vs, base, err := values(st, dot, final)
			defer st.pop(base)
			if err != nil {
				return nil, err
			}
			switch name {
			case "eq":
				return eq(vs[0], vs[1:]...)
			case "ne":
				t, err := eq(vs[0], vs[1])
				return !t, err
			}
			c, err := compare(vs[0], vs[1])
			switch name {
			case "lt":
				return c < 0, err
			case "le":
				return c <= 0, err
			case "gt":
				return c > 0, err
			}
			return c >= 0, err
		}
	case "len":
		if n != 1 {
			break
		}
		return func(st *state, dot, final any) (any, error) {
			vs, base, err := values(st, dot, final)
			defer st.pop(base)
			if err != nil {
				return nil, err
			}
			return length(vs[0])
		}
	case "index":
		if n < 1 {
			break
		}
		return func(st *state, dot, final any) (any, error) {
			vs, base, err := values(st, dot, final)
			defer st.pop(base)
			if err != nil {
				return nil, err
			}
			return index(vs[0], vs[1:])
		}
	}
	return failCommand(unsupported("function %s with %d arguments", name, n))
}

// funcCall compiles a call of fn: constant arguments are converted once,
// as text/template converts them for fn's parameter types.
func (c *compiler) funcCall(fn any, args []parse.Node, hasFinal bool) command {
	ft := reflect.TypeOf(fn)
	n := len(args)
	if hasFinal {
		n++
	}
	if ft.Kind() != reflect.Func || ft.IsVariadic() && n < ft.NumIn()-1 || !ft.IsVariadic() && n != ft.NumIn() {
		return failCommand(unsupported("call of %s with %d arguments", ft, n))
	}
	if ft.NumOut() == 0 || ft.NumOut() > 2 || ft.NumOut() == 2 && ft.Out(1) != errorType {
		return failCommand(unsupported("call of %s", ft))
	}
	call := adapt(fn)
	argv := make([]evaler, len(args))
	for i, a := range args {
		pt := paramType(ft, i)
		switch a.(type) {
		case *parse.BoolNode, *parse.StringNode, *parse.NumberNode, *parse.NilNode:
			v, err := literal(a, pt)
			if err != nil {
				return failCommand(err)
			}
			argv[i] = func(*state, any) (any, error) { return v, nil }
		default:
			argv[i] = c.operand(a)
		}
	}
	if ft.IsVariadic() {
		// The function may keep its arguments (sprig's list returns them).
		return func(st *state, dot, final any) (any, error) {
			vs := make([]any, n)
			for i, e := range argv {
				v, err := e(st, dot)
				if err != nil {
					return nil, err
				}
				vs[i] = v
			}
			if hasFinal {
				vs[n-1] = final
			}
			return call(vs)
		}
	}
	// A function of fixed arity gets its arguments one by one: they are
	// passed in the state's argument stack.
	return func(st *state, dot, final any) (any, error) {
		vs, base := st.push(n)
		defer st.pop(base)
		for i, e := range argv {
			v, err := e(st, dot)
			if err != nil {
				return nil, err
			}
			vs[i] = v
		}
		if hasFinal {
			vs[n-1] = final
		}
		return call(vs)
	}
}

func paramType(ft reflect.Type, i int) reflect.Type {
	if ft.IsVariadic() && i >= ft.NumIn()-1 {
		return ft.In(ft.NumIn() - 1).Elem()
	}
	return ft.In(i)
}

// includeCall compiles Helm's include: the named template run with the
// data given, as a string.
func (c *compiler) includeCall(args []parse.Node, hasFinal bool) command {
	n := len(args)
	if hasFinal {
		n++
	}
	if n != 2 {
		return failCommand(unsupported("include with %d arguments", n))
	}
	argv := make([]evaler, len(args))
	for i, a := range args {
		switch a.(type) {
		case *parse.StringNode:
			v, _ := literal(a, reflect.TypeFor[string]())
			argv[i] = func(*state, any) (any, error) { return v, nil }
		default:
			argv[i] = c.operand(a)
		}
	}
	return func(st *state, dot, final any) (any, error) {
		var vs [2]any
		for i, e := range argv {
			v, err := e(st, dot)
			if err != nil {
				return nil, err
			}
			vs[i] = v
		}
		if hasFinal {
			vs[1] = final
		}
		name, ok := vs[0].(string)
		if !ok {
			return nil, unsupported("include of %T", vs[0])
		}
		b := bufs.Get().(*bytes.Buffer)
		defer putBuf(b)
		b.Reset()
		if err := st.call(b, name, vs[1]); err != nil {
			return nil, err
		}
		return b.String(), nil
	}
}

// bufs holds the buffers of included templates' output.
var bufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func putBuf(b *bytes.Buffer) {
	if b.Cap() <= 1<<20 {
		bufs.Put(b)
	}
}
