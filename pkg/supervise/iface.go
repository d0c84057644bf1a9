package supervise

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/tfgen/tfgen/pkg/record"
)

// Command is the training process to run.
type Command struct {
	// Path of the executable (already looked up); Args[0] is its name.
	Path string
	// Args including Args[0].
	Args []string
	// Env of the process, "NAME=value".
	Env []string
	// Dir is the working directory ("" inherits).
	Dir string
	// Stdin, Stdout and Stderr of the process; nil inherits the
	// supervisor's (`tfgen run` gives each replica a pipe).
	Stdin, Stdout, Stderr *os.File
}

// Exit is how a training process ended.
type Exit struct {
	// Code is the exit status: the process's own, 128+n after signal n,
	// 127 when the command was not found, 126 when it could not be run.
	Code int
	// Signal that killed the process, 0 if none.
	Signal int
	// Reason in one word: Completed, Error, Signaled, CommandNotFound,
	// CommandNotExecutable (sidecar mode: the kubelet's, e.g. OOMKilled).
	Reason string
	// Message for humans, may be empty.
	Message string
	// Tail is the end of the process's output (record.Tail), when known:
	// wrap mode's capture, or in sidecar mode the kubelet's termination
	// message (FallbackToLogsOnError takes it from the logs).
	Tail string
	// At is when the process exited; zero: when its supervisor learnt it.
	At time.Time
}

// StartError is a command that could not be started; Code is 127 (not
// found) or 126 (found but not executable).
type StartError struct {
	Code int
	Err  error
}

func (e *StartError) Error() string { return fmt.Sprintf("start training process: %v", e.Err) }
func (e *StartError) Unwrap() error { return e.Err }

// Exit returns the exit a shell would report for the failed start.
func (e *StartError) Exit() Exit {
	reason := "CommandNotExecutable"
	if e.Code == 127 {
		reason = "CommandNotFound"
	}
	return Exit{Code: e.Code, Reason: reason, Message: e.Err.Error()}
}

// Runner starts training processes.
type Runner interface {
	// Start starts cmd in a process group of its own. A command that
	// cannot be started gives a *StartError.
	Start(cmd Command) (Process, error)
}

// Process is a started training process and its process group.
type Process interface {
	// Pid of the process (and ID of its group).
	Pid() int
	// Done is closed once the process has exited and been reaped.
	Done() <-chan struct{}
	// Exit says how it ended; valid once Done is closed.
	Exit() Exit
	// Signal sends sig to the process group.
	Signal(sig os.Signal) error
	// Kill sends SIGKILL to the process group.
	Kill() error
}

// Output gives each run of the training process its stdout and stderr
// and keeps the end of what it wrote.
type Output interface {
	// Streams returns the stdout and stderr of the next run; the caller
	// closes them once the process has started (or failed to).
	Streams() (stdout, stderr *os.File, err error)
	// Tail returns the end of the last run's output (record.Tail), once
	// it has been read to its end, waiting a moment at most.
	Tail() string
}

// Clock tells the time and makes timers.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// RealClock is the system clock.
type RealClock struct{}

var _ Clock = RealClock{}

// Now implements Clock.
func (RealClock) Now() time.Time { return time.Now() }

// After implements Clock.
func (RealClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Report is one change of a replica's record, with the Events that say
// why. Reporters publish Replica on the replica's pod (its annotations). A
// Report with no State carries Events only (the keeper's).
type Report struct {
	// Replica is the replica's record after the change.
	record.Replica
	// Exit, when not nil, is the exit of the training process the change
	// follows.
	Exit *Exit
	// Events to emit, in order.
	Events []Event
	// Spread, when positive, lets the reporter deliver the report up to
	// that much later: nothing waits for it, and every replica reports at
	// the same moment (its first start, the job's end), so their writes
	// are spread out.
	Spread time.Duration
	// Defer, when positive, holds the report back that long before its
	// Spread: at the job's end every replica stops its training first and
	// reports after, so that the API server hands the job's end to every
	// replica before it takes their reports.
	Defer time.Duration
}

// Event is an Event about the reporting replica's pod.
type Event struct {
	// Type: Normal or Warning.
	Type string
	// Reason in UpperCamelCase (the Reason* constants).
	Reason string
	// Action taken: Start, Exit, Restart, Fail, Finish, Teardown.
	Action string
	// Note for humans.
	Note string
}

// Reporter publishes reports (pod annotations, Events, a log).
type Reporter interface {
	// Report queues r; it does not wait for the API.
	Report(r Report)
	// Flush returns once everything queued has been delivered (or given
	// up on), or ctx is done.
	Flush(ctx context.Context) error
}

// Observed is one replica as the keeper sees it: its pod and the record
// its supervisor keeps there.
type Observed struct {
	// Ref names the replica.
	Ref
	// Pod identifies its pod (the pod's UID): a new pod of the same
	// replica has another.
	Pod string
	// Replica is its supervisor's record; State is "" until it wrote one.
	record.Replica
	// Gated: the pod carries the scheduling gate FinishedGate.
	Gated bool
}

// ReplicaFeed is the keeper's view of a job's replicas.
type ReplicaFeed interface {
	// Changed receives after the replicas changed (several changes may
	// come as one), first once every replica has been read.
	Changed() <-chan struct{}
	// Replicas returns the replicas as last seen, one per pod.
	Replicas() []Observed
	// Departed returns, once, the last record of each pod that went away
	// since the last call: a pod that ends by itself is deleted at once,
	// and its replica's last words (the end of its output) may come with
	// it, between two looks at Replicas.
	Departed() []Observed
}

// LogStore keeps the end of the replicas' output (record.Replica.LogTail)
// for when their pods are gone.
type LogStore interface {
	// Save replaces what is kept with tails, by replica (TYPE-INDEX).
	Save(ctx context.Context, tails map[string]string) error
}

// Result is how supervision ended: the exit code for the supervisor's
// own exit and the termination message.
type Result struct {
	// ExitCode of the last training process (0 when idle).
	ExitCode int `json:"exitCode"`
	// State the replica ended in: Succeeded, Failed, Stopped or Idle.
	State record.State `json:"state"`
	// Reason in one word, e.g. Completed, Error, MaxRestartsExceeded.
	Reason string `json:"reason"`
	// Restarts of this replica.
	Restarts int32 `json:"restarts"`
	// Message says why, when the supervisor refused to train
	// (RefuseSkew).
	Message string `json:"message,omitempty"`
	// Released: supervision ended because the job gave the pod back
	// (Supervisor.Complete, Watcher.Complete); the supervisor then exits
	// with ReleasedExitCode.
	Released bool `json:"released,omitempty"`
}

// ExitReleasedFailed is the exit code of a supervisor whose pod the job
// released after its replica failed; any other release exits 0. So the
// pod ends Failed or Succeeded as its replica did, and holds nothing: its
// container's restart rules restart it on any other code (a supervisor
// that crashed), never on these two.
const ExitReleasedFailed = 3

// ReleasedExitCode is the exit code of a supervisor whose pod the job
// released (Result.Released).
func (r Result) ReleasedExitCode() int {
	if r.State == record.StateFailed {
		return ExitReleasedFailed
	}
	return 0
}
