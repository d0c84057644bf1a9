// Package teardown implements supervise.Teardown in a cluster: Scaler
// releases a job's replicas when the job ends by scaling the job's
// StatefulSets (J-<type>) to zero through their scale subresource,
// retrying with a capped backoff while the API server is unreachable. (The
// training processes have stopped by then: every supervisor stops its own
// when the job's status says so.)
package teardown
