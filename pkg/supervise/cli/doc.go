// Package cli is tfsupervisor's command line: install, run (wrap mode),
// watch (sidecar mode), hold and version. It parses the flags of the
// contract with the templates (docs/contract.md; each flag also read from
// TFSUPERVISOR_<FLAG_IN_UPPER_SNAKE>), computes the replica's environment
// with pkg/cluster, and wires pkg/supervise to its real parts: processes
// (pkg/supervise/proc), the record ConfigMap (pkg/record), the API
// reporter and the scale-to-zero teardown, or, with no cluster to talk
// to, an in-memory record and stderr.
//
// Built with the tag tfsupervisor_wrap, it is the wrap-only build's (see
// Wrap): run and version alone, reporting through the pod's sidecar, and
// the files that need cobra or the API client (package rest) are left
// out: the image installs that build for the training container, where a
// smaller binary is less resident memory.
package cli
