// Package operate holds the cluster-side operations behind `tfgen list`,
// `status`, `logs`, `suspend`, `resume`, `scale` and `delete`: without an
// operator, a job is the objects tfgen rendered (found by their labels,
// docs/contract.md) and the status its supervisors keep in the record
// ConfigMap (pkg/record).
//
// It works on client-go and returns data; pkg/cli wires the flags and
// prints. Writes to the record go through pkg/record's Store with
// optimistic concurrency, so they never undo a supervisor's concurrent
// update; writes to StatefulSets use their resourceVersion (or the scale
// subresource) for the same reason.
//
// What a command changes besides the replica counts is recorded where
// `kubectl apply` and GitOps tools do not look: conditions in status.json,
// and the scaled worker count in the record's annotation tfgen.io/replicas.
// Resume restores the counts of spec.json (the rendered job, so also a job
// rendered with runPolicy.suspend) overridden by that annotation.
package operate
