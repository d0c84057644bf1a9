// Package harness holds what the integration test packages under test/
// share: running the kubectl, tfgen and helm binaries (and finding or
// building them), tfgen's own command in this process (Tfgen, Render),
// fresh namespaces, polling for a state with a deadline, decoding streams
// of objects, server-side dry-run (DryRunner) and what an API server
// would store compared field by field with what was sent (Unkept), the
// PodGroup CRDs of gang scheduling, a node agent started on first use, the
// suite's scratch directory, and Job: a job's status, replicas, pods'
// records, Events and kept logs, read or waited for on the API server.
//
// It is plain code for tests, not a test package: every path, kubeconfig
// and timeout is passed in, so each package keeps its own settings.
package harness
