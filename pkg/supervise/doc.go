// Package supervise is the control logic an operator would run for a
// training job, done inside the job's pods by two level-triggered pieces,
// each with one home:
//
//   - the replica's own state machine (replica.go), one per pod: it runs
//     the training process, restarts it by the replica's restart policy
//     (exponential backoff, a per-replica limit; under the job-wide
//     backoffLimit, once the keeper grants the restart), stops it when the
//     job ends or is suspended, never runs finished work again, and keeps
//     its record (state, restarts, last exit code, reason, the end of its
//     output) on its own pod, where no one else writes;
//   - the job's keeper (keeper.go), one per job, in the supervisor of one
//     replica (Job.Keeper): it follows every replica's record, derives
//     the job's status from them (derive.go, one file per policy:
//     backofflimit.go, success.go, cleanpod.go, evaluator.go, deadline.go,
//     replicacounts.go, and elastic.go, which resizes an elastic job by
//     the elastic pods of its namespace) and writes it, the only writer,
//     woken by one timer when a rule asks to look again; then it makes the
//     cluster match the status as written (enforce.go: every released
//     type's StatefulSet at zero, its own last, and finished replicas'
//     pods given back from the top), at its start, at every change, and
//     again until the API server takes it. A keeper restarted
//     mid-teardown finishes what the last one began.
//
// A Job is the job's policy, which every replica and the keeper share; a
// Config is one replica's own settings besides. Every replica follows the
// job's status (one watch, record.Source) to learn of grants, the job's
// end and suspension. So the writes per replica are a few, whatever the
// replica count, and the only writer of the job's status is the keeper
// (and `tfgen suspend`, `resume`, `scale`).
//
// Two drivers run the replica's state machine. Supervisor (wrap mode,
// `tfsupervisor run`) starts the training process itself through a
// Runner and learns each exit from it. Watcher (sidecar mode, `tfsupervisor
// watch`) learns each exit from the container statuses the kubelet writes,
// and leaves restarting to the kubelet.
//
// Everything outside the logic is behind small interfaces, so that the
// same code runs in a pod (pod annotations and Events, the record
// ConfigMap, a pod watch, the StatefulSets' scale) and on a workstation
// (`tfgen run`: every replica as a local process, an in-memory record and
// board of replicas, nothing to scale):
//
//   - Runner and Process start and signal the training process
//     (pkg/supervise/proc: process groups, one Wait4 reaper);
//   - Clock gives the time and timers (tests freeze it);
//   - Reporter publishes a replica's record and Events
//     (pkg/supervise/report);
//   - ReplicaFeed is the keeper's view of the replicas
//     (pkg/supervise/podwatch; pkg/supervise/board in one process);
//   - Scaler sets the replicas of the job's StatefulSets;
//   - record.Source follows the job's status, record.Store writes it
//     (pkg/record).
package supervise
