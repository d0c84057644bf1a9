// Package supervise is the control logic an operator would run for one
// replica of a training job, done inside the replica's pod: it restarts the
// training process by the replica's restart policy (with exponential
// backoff, a per-replica limit, the job-wide backoffLimit and the active
// deadline), keeps the job's status in the record, decides the job's
// outcome, reports every exit, tears the job down when it ends, and never
// runs finished work again.
//
// Two drivers share that logic. Supervisor (wrap mode, `tfsupervisor run`)
// starts the training process itself through a Runner and learns each exit
// from it. Watcher (sidecar mode, `tfsupervisor watch`) learns each exit
// from the container statuses the kubelet writes, and leaves restarting to
// the kubelet.
//
// Everything outside the logic is behind small interfaces, so that the
// same code runs in a pod (API reporter, scale-to-zero teardown, record
// ConfigMap) and on a workstation (`tfgen run`: every replica as a local
// process, a shared in-memory record, a local teardown):
//
//   - Runner and Process start and signal the training process
//     (pkg/supervise/proc: process groups, one Wait4 reaper);
//   - Clock gives the time and timers (tests freeze it);
//   - Reporter delivers state changes and Events (pkg/supervise/report);
//   - Teardown stops the replicas of a job (pkg/supervise/teardown);
//   - record.Store holds the job's status (pkg/record).
package supervise
