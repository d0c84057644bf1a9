// Package e2e tests tfgen end to end against a real control plane
// (test/controlplane: etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler), through the API only (no pod runs here):
//
//   - every golden output and example applies (server-side dry-run, apply,
//     apply again, kubectl diff) — apply_test.go;
//   - whatever tfgen renders the API server accepts: every example, every
//     golden output and a few thousand generated jobs (internal/jobgen)
//     tfgen renders are created with server-side dry-run — dryrun_test.go;
//   - the job's ServiceAccount may do exactly what tfsupervisor needs —
//     rbac_test.go;
//
// Whole jobs (success and teardown, failures, retries, the active deadline,
// sidecar mode, MXNet, Pod Security) run on a real kubelet in test/node.
//
// The tests use tfgen from $TFGEN_BIN (make e2e), else build it, and
// kubectl from PATH.
package e2e
