// Package record holds what a job's replicas share, in two places that
// each have few writers:
//
//   - Status, the job's status: JSON under the key status.json of the
//     job's record ConfigMap (named after the job), shaped like Kubeflow's
//     TFJob status (conditions, replicaStatuses, startTime, completionTime)
//     plus the job-wide restart count that backoffLimit caps, the replicas
//     that have succeeded, the restarts granted under backoffLimit and what
//     stops when the job ends. One keeper per job writes it (and `tfgen
//     suspend`, `resume`, `scale`), with optimistic concurrency (Store),
//     and every replica watches it. The templates render only spec.json,
//     so `kubectl apply` and GitOps tools never see the status as drift.
//     Its size does not grow with the replica count but for the succeeded
//     set, a few bytes per run of indices.
//   - Replica, what one replica's supervisor says of it (state, restarts,
//     last exit code, reason), on its own pod's annotations: written only
//     by that supervisor, so those writes never conflict.
package record
