package tmplexec

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"text/template"
	"text/template/parse"
)

// ErrUnsupported is returned by Execute, wrapped, when the fast path cannot
// tell what text/template would do; the caller then runs text/template.
var ErrUnsupported = errors.New("tmplexec: not on the fast path")

func unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrUnsupported}, args...)...)
}

// maxDepth bounds nested template calls; past it the fast path gives up
// and text/template reports the recursion as it does.
const maxDepth = 100

// Set is a compiled template set; it is safe for concurrent use.
type Set struct {
	tmpls   map[string]*tmpl
	funcs   template.FuncMap
	include string
}

// tmpl is one compiled template: its body and the number of variable
// slots its frame needs ($ is slot 0).
type tmpl struct {
	name  string
	nvars int
	body  runner
}

// state is one execution: the current template's variable frame and the
// depth of nested template calls.
type state struct {
	set   *Set
	vars  []any
	depth int
	// args is a stack of the variable frames of the templates and of the
	// arguments of the function calls in progress (those of functions
	// that keep none).
	args []any
}

type (
	// runner writes the output of a node.
	runner func(st *state, w *bytes.Buffer, dot any) error
	// evaler returns the value of a pipeline or an argument.
	evaler func(st *state, dot any) (any, error)
	// command returns the value of a command given the value of the
	// previous command of its pipeline (final), when there is one.
	command func(st *state, dot any, final any) (any, error)
)

// Control flow of break and continue, passed up as errors to the range.
var (
	errBreak    = errors.New("break")
	errContinue = errors.New("continue")
)

// Compile compiles every template of t. funcs must be the functions t was
// parsed with; the one named include (when not empty) is executed here,
// as Helm's include: it runs the named template of the set into a string.
func Compile(t *template.Template, funcs template.FuncMap, include string) *Set {
	s := &Set{tmpls: map[string]*tmpl{}, funcs: funcs, include: include}
	for _, tt := range t.Templates() {
		if tt.Tree != nil && tt.Tree.Root != nil {
			s.tmpls[tt.Name()] = &tmpl{name: tt.Name()}
		}
	}
	for _, tt := range t.Templates() {
		ct := s.tmpls[tt.Name()]
		if ct == nil {
			continue
		}
		c := &compiler{set: s, nvars: 1, scope: []scopeVar{{"$", 0}}}
		ct.body = c.list(tt.Tree.Root)
		ct.nvars = c.nvars
	}
	return s
}

// Execute runs template name with data into w. On error w holds part of
// the output and the caller should run text/template instead.
func (s *Set) Execute(w *bytes.Buffer, name string, data any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = unsupported("panic: %v", p)
		}
	}()
	st, _ := states.Get().(*state)
	if st == nil {
		st = &state{}
	}
	*st = state{set: s, args: st.args[:0]}
	err = st.call(w, name, data)
	if err == nil {
		states.Put(st)
	}
	return err
}

// states are reused by Execute, for their argument stacks.
var states sync.Pool

// push returns n slots on the argument stack and the stack's height
// before them, for pop.
func (st *state) push(n int) (slots []any, base int) {
	base = len(st.args)
	st.args = append(st.args, make([]any, n)...)
	return st.args[base : base+n : base+n], base
}

// pop drops the arguments above base.
func (st *state) pop(base int) {
	clear(st.args[base:])
	st.args = st.args[:base]
}

// call runs template name with dot in a frame of its own.
func (st *state) call(w *bytes.Buffer, name string, dot any) error {
	t := st.set.tmpls[name]
	if t == nil {
		return unsupported("no template %q", name)
	}
	if st.depth >= maxDepth {
		return unsupported("templates nested %d deep", st.depth)
	}
	saved := st.vars
	vars, base := st.push(t.nvars)
	vars[0] = dot
	st.vars = vars
	st.depth++
	err := t.body(st, w, dot)
	st.depth--
	st.vars = saved
	st.pop(base)
	if err == errBreak || err == errContinue {
		return unsupported("break or continue outside range")
	}
	return err
}

type scopeVar struct {
	name string
	slot int
}

// compiler compiles one template; variables are resolved to frame slots
// at compile time, scoped as text/template scopes them at run time.
type compiler struct {
	set   *Set
	scope []scopeVar
	nvars int
}

func (c *compiler) declare(name string) int {
	slot := c.nvars
	c.nvars++
	c.scope = append(c.scope, scopeVar{name, slot})
	return slot
}

func (c *compiler) lookup(name string) (int, bool) {
	for i := len(c.scope) - 1; i >= 0; i-- {
		if c.scope[i].name == name {
			return c.scope[i].slot, true
		}
	}
	return 0, false
}

func failRunner(err error) runner {
	return func(*state, *bytes.Buffer, any) error { return err }
}

func failEvaler(err error) evaler {
	return func(*state, any) (any, error) { return nil, err }
}

func (c *compiler) list(l *parse.ListNode) runner {
	if l == nil {
		return func(*state, *bytes.Buffer, any) error { return nil }
	}
	var rs []runner
	for _, n := range l.Nodes {
		if r := c.node(n); r != nil {
			rs = append(rs, r)
		}
	}
	if len(rs) == 1 {
		return rs[0]
	}
	return func(st *state, w *bytes.Buffer, dot any) error {
		for _, r := range rs {
			if err := r(st, w, dot); err != nil {
				return err
			}
		}
		return nil
	}
}

func (c *compiler) node(n parse.Node) runner {
	switch n := n.(type) {
	case *parse.TextNode:
		text := n.Text
		return func(_ *state, w *bytes.Buffer, _ any) error {
			w.Write(text)
			return nil
		}
	case *parse.CommentNode:
		return nil
	case *parse.ActionNode:
		if r := c.includeAction(n.Pipe); r != nil {
			return r
		}
		pipe := c.pipeline(n.Pipe)
		if len(n.Pipe.Decl) > 0 {
			return func(st *state, _ *bytes.Buffer, dot any) error {
				_, err := pipe(st, dot)
				return err
			}
		}
		return func(st *state, w *bytes.Buffer, dot any) error {
			v, err := pipe(st, dot)
			if err != nil {
				return err
			}
			return printValue(w, v)
		}
	case *parse.IfNode:
		return c.ifOrWith(n.Pipe, n.List, n.ElseList, false)
	case *parse.WithNode:
		return c.ifOrWith(n.Pipe, n.List, n.ElseList, true)
	case *parse.RangeNode:
		return c.rangeNode(n)
	case *parse.BreakNode:
		return failRunner(errBreak)
	case *parse.ContinueNode:
		return failRunner(errContinue)
	case *parse.TemplateNode:
		name := n.Name
		pipe := c.pipeline(n.Pipe)
		return func(st *state, w *bytes.Buffer, dot any) error {
			v, err := pipe(st, dot)
			if err != nil {
				return err
			}
			return st.call(w, name, v)
		}
	case *parse.ListNode:
		return c.list(n)
	}
	return failRunner(unsupported("node %s", n))
}

// includeAction compiles {{ include "NAME" ARG }}, printed as it is, to
// run the template straight into the output; nil for other actions.
func (c *compiler) includeAction(p *parse.PipeNode) runner {
	if c.set.include == "" || len(p.Decl) > 0 || len(p.Cmds) != 1 || len(p.Cmds[0].Args) != 3 {
		return nil
	}
	args := p.Cmds[0].Args
	fn, ok := args[0].(*parse.IdentifierNode)
	name, isString := args[1].(*parse.StringNode)
	if !ok || fn.Ident != c.set.include || !isString {
		return nil
	}
	switch args[2].(type) {
	case *parse.NilNode, *parse.BoolNode, *parse.NumberNode, *parse.StringNode:
		return nil
	}
	arg := c.operand(args[2])
	return func(st *state, w *bytes.Buffer, dot any) error {
		v, err := arg(st, dot)
		if err != nil {
			return err
		}
		return st.call(w, name.Text, v)
	}
}

func (c *compiler) ifOrWith(p *parse.PipeNode, list, elseList *parse.ListNode, with bool) runner {
	mark := len(c.scope)
	pipe := c.pipeline(p)
	body := c.list(list)
	var orElse runner
	if elseList != nil {
		orElse = c.list(elseList)
	}
	c.scope = c.scope[:mark]
	return func(st *state, w *bytes.Buffer, dot any) error {
		v, err := pipe(st, dot)
		if err != nil {
			return err
		}
		t, ok := truth(v)
		if !ok {
			return unsupported("if/with of %T", v)
		}
		if t {
			if with {
				return body(st, w, v)
			}
			return body(st, w, dot)
		}
		if orElse != nil {
			return orElse(st, w, dot)
		}
		return nil
	}
}

func (c *compiler) rangeNode(n *parse.RangeNode) runner {
	mark := len(c.scope)
	// The pipeline's variables first hold the whole value, then, in each
	// iteration, the element (one variable) or the key and the element.
	pipe := c.pipeline(n.Pipe)
	var slots []int
	for _, d := range n.Pipe.Decl {
		slot, ok := c.lookup(d.Ident[0])
		if !ok {
			return failRunner(unsupported("variable %s", d.Ident[0]))
		}
		slots = append(slots, slot)
	}
	body := c.list(n.List)
	var orElse runner
	if n.ElseList != nil {
		orElse = c.list(n.ElseList)
	}
	c.scope = c.scope[:mark]
	one := func(st *state, w *bytes.Buffer, key, elem any) (stop bool, err error) {
		switch len(slots) {
		case 1:
			st.vars[slots[0]] = elem
		case 2:
			st.vars[slots[0]], st.vars[slots[1]] = key, elem
		}
		switch err := body(st, w, elem); err {
		case nil, errContinue:
			return false, nil
		case errBreak:
			return true, nil
		default:
			return true, err
		}
	}
	return func(st *state, w *bytes.Buffer, dot any) error {
		v, err := pipe(st, dot)
		if err != nil {
			return err
		}
		switch v := v.(type) {
		case nil:
		case []any:
			if len(v) == 0 {
				break
			}
			for i, e := range v {
				if stop, err := one(st, w, i, e); stop {
					return err
				}
			}
			return nil
		case []string:
			if len(v) == 0 {
				break
			}
			for i, e := range v {
				if stop, err := one(st, w, i, e); stop {
					return err
				}
			}
			return nil
		case []int:
			if len(v) == 0 {
				break
			}
			for i, e := range v {
				if stop, err := one(st, w, i, e); stop {
					return err
				}
			}
			return nil
		case map[string]any:
			if len(v) == 0 {
				break
			}
			for _, k := range sortedKeys(v) {
				if stop, err := one(st, w, k, v[k]); stop {
					return err
				}
			}
			return nil
		default:
			return unsupported("range over %T", v)
		}
		if orElse != nil {
			return orElse(st, w, dot)
		}
		return nil
	}
}

// pipeline compiles a pipeline and the declaration or assignment of its
// variables.
func (c *compiler) pipeline(p *parse.PipeNode) evaler {
	if p == nil {
		return failEvaler(unsupported("empty pipeline"))
	}
	cmds := make([]command, len(p.Cmds))
	for i, cmd := range p.Cmds {
		cmds[i] = c.command(cmd, i > 0)
	}
	var slots []int
	for _, d := range p.Decl {
		name := d.Ident[0]
		if p.IsAssign {
			slot, ok := c.lookup(name)
			if !ok {
				return failEvaler(unsupported("variable %s", name))
			}
			slots = append(slots, slot)
		} else {
			slots = append(slots, c.declare(name))
		}
	}
	return func(st *state, dot any) (any, error) {
		var v any
		for _, cmd := range cmds {
			var err error
			if v, err = cmd(st, dot, v); err != nil {
				return nil, err
			}
		}
		for _, s := range slots {
			st.vars[s] = v
		}
		return v, nil
	}
}

// command compiles one command of a pipeline; hasFinal tells whether it
// receives the previous command's value as its last argument.
func (c *compiler) command(cmd *parse.CommandNode, hasFinal bool) command {
	notFunc := func(e evaler) command {
		if len(cmd.Args) > 1 || hasFinal {
			return failCommand(unsupported("arguments to a non-function %s", cmd))
		}
		return func(st *state, dot any, _ any) (any, error) { return e(st, dot) }
	}
	switch n := cmd.Args[0].(type) {
	case *parse.IdentifierNode:
		return c.call(n.Ident, cmd.Args[1:], hasFinal)
	case *parse.FieldNode, *parse.VariableNode, *parse.PipeNode:
		return notFunc(c.operand(n))
	case *parse.DotNode, *parse.StringNode, *parse.BoolNode, *parse.NumberNode:
		return notFunc(c.operand(n))
	}
	return failCommand(unsupported("command %s", cmd))
}

func failCommand(err error) command {
	return func(*state, any, any) (any, error) { return nil, err }
}

// operand compiles a value used as an argument of type any.
func (c *compiler) operand(n parse.Node) evaler {
	switch n := n.(type) {
	case *parse.DotNode:
		return func(_ *state, dot any) (any, error) { return dot, nil }
	case *parse.FieldNode:
		idents := n.Ident
		return func(_ *state, dot any) (any, error) { return fieldChain(dot, idents) }
	case *parse.VariableNode:
		slot, ok := c.lookup(n.Ident[0])
		if !ok {
			return failEvaler(unsupported("variable %s", n.Ident[0]))
		}
		idents := n.Ident[1:]
		if len(idents) == 0 {
			return func(st *state, _ any) (any, error) { return st.vars[slot], nil }
		}
		return func(st *state, _ any) (any, error) { return fieldChain(st.vars[slot], idents) }
	case *parse.PipeNode:
		mark := len(c.scope)
		e := c.pipeline(n)
		c.scope = c.scope[:mark]
		return e
	case *parse.IdentifierNode:
		cmd := c.call(n.Ident, nil, false)
		return func(st *state, dot any) (any, error) { return cmd(st, dot, nil) }
	}
	v, err := literal(n, anyType)
	if err != nil {
		return failEvaler(err)
	}
	return func(*state, any) (any, error) { return v, nil }
}

var anyType = reflect.TypeFor[any]()

// fieldChain looks up .a.b.c in maps of chart values; a missing key or
// another receiver is left to text/template.
func fieldChain(v any, idents []string) (any, error) {
	for _, id := range idents {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, unsupported("field %s of %T", id, v)
		}
		if v, ok = m[id]; !ok {
			return nil, unsupported("no key %s", id)
		}
	}
	return v, nil
}
