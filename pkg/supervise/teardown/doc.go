// Package teardown implements supervise.Teardown, the one way the
// supervision logic stops a job's replicas when the job ends, twice: Scaler
// stops them in a cluster by scaling the job's StatefulSets (J-<type>) to
// zero through their scale subresource, retrying with a capped backoff
// while the API server is unreachable; Local stops replicas that run as
// local processes under `tfgen run` by cancelling their supervisors, which
// send SIGTERM, then SIGKILL after the grace period.
package teardown
