// Package operate tests `tfgen list`, `status`, `logs`, `suspend`,
// `resume`, `scale` and `delete` end to end, against a real control plane
// (test/controlplane, with the controller-manager and the scheduler): the
// examples are rendered by `tfgen render` and created as they are.
//
// Most tests play the kubelet and the supervisors themselves, so that the
// output is golden: pods are kept from the scheduler (their templates name
// a scheduler that does not exist), bound by the test to a Node of its own
// and given a status, and the job's record is written through pkg/record's
// API as supervisors write it, with fixed times; the commands run
// in-process with a frozen clock. One test runs a job for real on the node
// agent (test/nodeagent) with tfsupervisor, and drives it through every
// command. Pod logs are served by the kubelet, which this control plane
// lacks, so only their errors are tested here (pkg/operate tests the rest).
package operate
