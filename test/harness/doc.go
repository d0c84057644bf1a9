// Package harness holds what the integration test packages under test/
// share: running the kubectl, tfgen and helm binaries (and finding or
// building them), fresh namespaces, polling for a state with a deadline,
// decoding streams of objects, a node agent started on first use, and the
// suite's scratch directory.
//
// It is plain code for tests, not a test package: every path, kubeconfig
// and timeout is passed in, so each package keeps its own settings.
package harness
