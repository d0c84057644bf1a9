// Package cli is tfsupervisor's command line: install, run (wrap mode),
// watch (sidecar mode) and version. It parses the flags of the contract
// with the templates (docs/contract.md; each flag also read from
// TFSUPERVISOR_<FLAG_IN_UPPER_SNAKE>), computes the replica's environment
// with pkg/cluster, and wires pkg/supervise to its real parts: processes
// (pkg/supervise/proc), the record ConfigMap (pkg/record), the API
// reporter and the scale-to-zero teardown, or, with no cluster to talk
// to, an in-memory record and stderr.
package cli
