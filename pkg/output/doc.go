// Package output writes rendered objects and pass-through documents: a YAML
// stream ("---" separated), a JSON v1 List, or a directory with one file per
// object plus a kustomization.yaml, written atomically. The same input gives
// the same bytes.
package output
