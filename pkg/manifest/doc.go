// Package manifest owns Kubernetes objects as plain data: splitting a YAML
// stream into documents, parsing a document into an Object, and writing
// objects back out as YAML or JSON.
//
// Parsing has a fast path for the shape tfgen's templates produce (block
// mappings and sequences whose leaves are plain words, integers or one-line
// JSON) and falls back to sigs.k8s.io/yaml, the parser Helm uses, for
// anything else; both give the same data. The YAML writer sorts keys, quotes
// every string a YAML 1.1 or 1.2 reader could take for something else, and
// so produces the same bytes for the same data.
package manifest
