// Package teardown implements supervise.Teardown. Scaler stops a job's
// replicas in a cluster by scaling the job's StatefulSets (J-<type>) to
// zero through their scale subresource, retrying with a capped backoff
// while the API server is unreachable. A local implementation for
// `tfgen run`, which stops local processes, satisfies the same interface.
package teardown
