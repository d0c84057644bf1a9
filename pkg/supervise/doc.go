// Package supervise is the control logic an operator would run for a
// training job, done inside the job's pods by two level-triggered pieces,
// each with one home:
//
//   - the replica's own state machine (replica.go), one per pod: it runs
//     the training process, restarts it by the replica's restart policy
//     (exponential backoff, a per-replica limit; under the job-wide
//     backoffLimit, once the keeper grants the restart), stops it when the
//     job ends or is suspended, never runs finished work again, and keeps
//     its record (state, restarts, last exit code, reason) on its own pod,
//     where no one else writes;
//   - the job's keeper (keeper.go, derive.go), one per job, in the
//     supervisor of one replica (Config.Keeper): it follows every
//     replica's record and derives the job's status from them (conditions,
//     start and completion time, the outcome by the success policy, the
//     job-wide restart count, restart grants, the active deadline), writes
//     it to the job's record when it changes, and tears the job down by its
//     clean pod policy when it ends.
//
// Every replica follows the job's status (one watch) to learn of grants,
// the job's end and suspension. So the writes per replica are a few,
// whatever the replica count, and the only writer of the job's status is
// the keeper (and `tfgen suspend`, `resume`, `scale`).
//
// Two drivers run the replica's state machine. Supervisor (wrap mode,
// `tfsupervisor run`) starts the training process itself through a
// Runner and learns each exit from it. Watcher (sidecar mode, `tfsupervisor
// watch`) learns each exit from the container statuses the kubelet writes,
// and leaves restarting to the kubelet.
//
// Everything outside the logic is behind small interfaces, so that the
// same code runs in a pod (pod annotations and Events, the record
// ConfigMap, a pod watch, scale-to-zero teardown) and on a workstation
// (`tfgen run`: every replica as a local process, an in-memory record and
// board of replicas, a local teardown):
//
//   - Runner and Process start and signal the training process
//     (pkg/supervise/proc: process groups, one Wait4 reaper);
//   - Clock gives the time and timers (tests freeze it);
//   - Reporter publishes a replica's record and Events
//     (pkg/supervise/report);
//   - ReplicaFeed is the keeper's view of the replicas
//     (pkg/supervise/podwatch; pkg/supervise/board in one process);
//   - Teardown stops the replicas of a job (pkg/supervise/teardown);
//   - record.Store holds and follows the job's status (pkg/record).
package supervise
