// Package harness holds what the integration test packages under test/
// share: running the kubectl, tfgen and helm binaries (and finding or
// building them), fresh namespaces, polling for a state with a deadline,
// decoding streams of objects, a node agent started on first use, the
// suite's scratch directory, and Job: a job's status, replicas, pods'
// records, Events and kept logs, read or waited for on the API server.
//
// It is plain code for tests, not a test package: every path, kubeconfig
// and timeout is passed in, so each package keeps its own settings.
package harness
