// Package cluster computes what a replica needs to find its peers: TF_CONFIG
// for TensorFlow, MX_CONFIG and DMLC_* for MXNet. It works from the job's
// layout (roles, counts, ports, naming rule) and one replica's type and
// ordinal, so rendered manifests never list the cluster replica by replica.
// Both tfsupervisor and `tfgen env` use it; it imports nothing heavy.
package cluster
