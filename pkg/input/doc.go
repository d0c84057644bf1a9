// Package input reads tfgen's PATH arguments into documents: a file, every
// .yaml, .yml and .json file of a directory (sorted by name), or "-" for
// standard input. YAML streams are split at "---" lines and JSON files may
// hold several values; empty documents are skipped. Each document keeps its
// file, its position and the line it starts on, so that later stages can
// name where a problem is. Malformed YAML is an error naming file and line.
// A v1 List (what `kubectl get -o yaml` prints) becomes its items, each a
// document without the fields the API server set.
package input
