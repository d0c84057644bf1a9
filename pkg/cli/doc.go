// Package cli holds tfgen's cobra commands, one file per subcommand. Each
// command keeps its flags in an options struct with AddFlags and Validate,
// does its work in RunE and writes only to the writers it is given, so tests
// run the real root command into buffers.
//
// Every command that reads jobs runs the same pipeline: input → dialect
// decode → image entrypoints → validate (pipeline.go); render adds render →
// check → output. Problems from every document are reported at once, and
// nothing is written to stdout or the output directory when there is one.
package cli
