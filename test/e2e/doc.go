// Package e2e tests tfgen end to end against a real control plane
// (test/controlplane: etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler) with the test node agent (test/nodeagent) running the
// pods as local processes and the test workload (test/workload) standing
// in for TensorFlow and MXNet:
//
//   - every golden output and example applies (server-side dry-run, apply,
//     apply again, kubectl diff) — apply_test.go;
//   - a restricted-compliant job is admitted under the restricted Pod
//     Security Standard, wrap and sidecar mode — pss_test.go;
//   - the job's ServiceAccount may do exactly what tfsupervisor needs —
//     rbac_test.go;
//   - whole jobs run: success and teardown, permanent failure, retries up
//     to backoffLimit, the active deadline, sidecar mode, MXNet, and a
//     finished job applied again does not train again — flow_test.go.
//
// The tests use tfgen and tfsupervisor from $TFGEN_BIN (make e2e), else
// build them, and kubectl from PATH.
package e2e
