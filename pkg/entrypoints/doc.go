// Package entrypoints fills in the command of training containers that
// leave it to their image, from a file mapping image references to their
// ENTRYPOINT and CMD (--image-entrypoints), so that such replicas render in
// wrap mode instead of sidecar mode. tfgen never contacts a registry.
package entrypoints
