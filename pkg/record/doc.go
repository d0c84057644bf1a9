// Package record holds a job's status as tfsupervisor keeps it: JSON under
// the key status.json of the job's record ConfigMap (named after the job).
// The templates render only spec.json, so `kubectl apply` and GitOps tools
// never see the status as drift.
//
// Status is shaped like Kubeflow's TFJob status (conditions, replicaStatuses,
// startTime, completionTime) and adds what Kubeflow lacks: each replica's
// state, last exit code, restarts and reason, and the job-wide restart count
// that backoffLimit is measured against. It is written by every replica's
// supervisor with optimistic concurrency (Store.Update) and read by
// `tfgen status`.
package record
