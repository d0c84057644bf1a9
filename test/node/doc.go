// Package node runs tfgen's jobs on a real one-node cluster: the shared
// control plane (test/controlplane) with Options.Node, that is containerd,
// runc, the CNI bridge, the kubelet and CoreDNS on this machine. The pods
// are real containers of images built here (the tfsupervisor image, the
// test workload) and imported into containerd; nothing is pulled.
//
// What it covers that the node agent (test/nodeagent) cannot: the
// kubelet's container restart rules, the downward API and the pod-index
// label, the init container copying tfsupervisor across users,
// termination messages, `kubectl logs` (so `tfgen logs`), Pod Security
// under a real runtime, and replicas reaching each other by their Service
// DNS names.
//
// Only one node runs per machine: a package using it waits for the
// machine's node lock. The node agent stays for tests of hundreds of pods
// (test/supervisor's large jobs, the benches), which one kubelet on two
// cores cannot run.
package node
