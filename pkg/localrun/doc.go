// Package localrun runs a training job on this machine (`tfgen run`):
// every replica as a local process running its training container's
// command and args (the image is not used), each under a
// supervise.Supervisor, the code tfsupervisor runs in a pod, beside the
// job's supervise.Keeper. They share an in-memory record and a board of the
// replicas' records (where a cluster has the pods), so restart policies,
// exit-code rules, backoff, limits, the deadline, the success policy and
// the clean-pod policy behave as on a cluster.
//
// NewPlan turns a job into replicas: each gets a free port on localhost,
// TF_CONFIG (or MX_CONFIG and DMLC_*) in the shape a pod gets, with those
// addresses, the pod's identity (POD_NAME J-t-i, POD_NAMESPACE) and the
// container's plain env values. Run starts them, prefixes every line they
// write with the replica's name, reports each exit, stops what is left when
// the job ends, and returns a Summary.
//
// Run starts proc's process-wide reaper, which owns Wait4(-1): a process
// that uses it must not wait for children with os/exec.
package localrun
