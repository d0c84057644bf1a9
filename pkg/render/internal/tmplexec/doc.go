// Package tmplexec executes a parsed text/template set without
// text/template's reflection: each template is compiled once into Go
// closures working on plain values (any), and functions are called
// through typed adapters instead of reflect.Value.Call.
//
// It is a fast path, not a replacement: anything it does not handle the
// way text/template does (an unknown node, a value of another type than
// the data of a chart's values holds, a missing map key, any error at all)
// makes Execute return an error, and the caller runs text/template, which
// gives the output or the error it always gave. So on success the output
// is text/template's, byte for byte; tests compare the two.
package tmplexec
