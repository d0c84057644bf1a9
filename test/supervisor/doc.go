// Package supervisor tests tfsupervisor against a real kube-apiserver
// (test/controlplane): many replicas writing the job record at once,
// teardown by scale subresource, sidecar mode reading exits from pod
// status as the kubelet writes it, supervisors and the job's keeper
// (tfsupervisor keep, on a pod of its own) restarted mid-job, the gate
// of finished replicas, and API outages and refusals. No
// controller-manager runs: the tests make the pods by hand, and a
// stand-in (observer) does the one thing of the StatefulSet controller's
// that the keeper waits for. The tfsupervisor binary is built by the
// tests; the control plane comes from `make tools`.
package supervisor
