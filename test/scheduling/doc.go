// Package scheduling tests where kube-scheduler puts the pods tfgen
// renders, on a real control plane (test/controlplane, with the
// controller-manager and the scheduler) and two node agents
// (test/nodeagent), node-a in zone-a and node-b in zone-b, each with 4
// CPUs: room for four pods of 900m and tfsupervisor's 10m, not five.
//
// Only the placement is tested: the images are not in the agents' tables,
// so no container starts, and what a pod asks for (its CPU requests, its
// affinity) is all the scheduler weighs. Each test leaves the nodes empty.
//
// The tests use tfgen from $TFGEN_BIN (make e2e), else build it, and
// kubectl from PATH.
package scheduling
