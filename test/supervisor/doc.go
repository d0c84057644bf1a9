// Package supervisor tests tfsupervisor against a real kube-apiserver
// (test/controlplane): many replicas writing the job record at once,
// teardown by scale subresource, sidecar mode reading exits from pod
// status as the kubelet writes it, supervisors restarted mid-job, and an
// API outage during teardown. The tfsupervisor binary is built by the
// tests; the control plane comes from `make tools`.
package supervisor
