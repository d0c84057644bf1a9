package record

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// State is a replica's state.
type State string

// Replica states.
const (
	// StateRunning: the training process runs.
	StateRunning State = "Running"
	// StateRestarting: it exited and will be restarted (under
	// backoffLimit, once the keeper grants the restart).
	StateRestarting State = "Restarting"
	// StateSucceeded: it exited 0 and will not run again.
	StateSucceeded State = "Succeeded"
	// StateFailed: it failed with no restart left.
	StateFailed State = "Failed"
	// StateStopped: it was stopped from outside: the job ended or was
	// suspended, or its pod went away.
	StateStopped State = "Stopped"
	// StateIdle: its supervisor found nothing to do (the job had ended, or
	// the replica had succeeded in an earlier pod) and does not train.
	StateIdle State = "Idle"
)

// Finished reports whether a replica in state st has finished its work:
// it succeeded or failed.
func (st State) Finished() bool { return st == StateSucceeded || st == StateFailed }

// Active reports whether a replica in state st counts as active, as
// Kubeflow counts pods: running or about to run again.
func (st State) Active() bool { return st == StateRunning || st == StateRestarting }

// Annotations a supervisor keeps on its own pod: the replica's record.
const (
	AnnotationState        = "tfgen.io/state"
	AnnotationRestarts     = "tfgen.io/restarts"
	AnnotationLastExitCode = "tfgen.io/last-exit-code"
	AnnotationReason       = "tfgen.io/reason"
	AnnotationLastExitID   = "tfgen.io/last-exit-id"
	AnnotationMessage      = "tfgen.io/message"
	AnnotationGeneration   = "tfgen.io/restart-generation"
	AnnotationLogTail      = "tfgen.io/log-tail"
	AnnotationLastExitTime = "tfgen.io/last-exit-time"
)

// exitTimeLayout is the last exit's time on a pod: milliseconds, where
// Kubernetes keeps seconds (a stop takes well under one).
const exitTimeLayout = "2006-01-02T15:04:05.000Z07:00"

// MaxMessage is the most bytes of a replica's message kept on its pod.
const MaxMessage = 1024

// MaxLogTail is the most bytes of a replica's output kept on its pod: the
// kubelet's own bound for a termination message taken from the logs
// (FallbackToLogsOnError).
const MaxLogTail = 2048

// Tail returns the end of output, at most MaxLogTail bytes: whole lines
// where it was cut (a line longer than all of it keeps its end), valid
// UTF-8.
func Tail(output string) string {
	if len(output) <= MaxLogTail {
		return strings.ToValidUTF8(output, "\uFFFD")
	}
	t := output[len(output)-MaxLogTail:]
	if i := strings.IndexByte(t, '\n'); i >= 0 && i < len(t)-1 {
		t = t[i+1:]
	}
	for len(t) > 0 && !utf8.RuneStart(t[0]) {
		t = t[1:]
	}
	return strings.ToValidUTF8(t, "\uFFFD")
}

// Replica is what one replica's supervisor says of it, kept on its own
// pod's annotations, where no one else writes.
type Replica struct {
	// State of the replica.
	State State
	// Restarts of its training process in this pod: maxRestarts caps
	// them, and the keeper adds them to the job's count.
	Restarts int32
	// LastExitCode of the training process; 128+n after signal n.
	LastExitCode *int32
	// Reason of the last change (Completed, Error, OOMKilled, ...).
	Reason string
	// Message says what happened, for a replica that failed or stopped.
	Message string
	// LastExitID identifies the last exit counted in sidecar mode (the
	// pod's UID and the kubelet's restart count), so that none counts
	// twice when the supervisor restarts.
	LastExitID string
	// Generation, under restart scope Job, is the job's restart
	// generation its training process last started in.
	Generation int32
	// LogTail is the end of the training process's output (Tail) at its
	// last exit that was not a success: kept on the pod, where the keeper
	// gathers it for `tfgen logs` once the pod is gone.
	LogTail string
	// LastExitTime is when the training process last exited (sidecar
	// mode: when the kubelet says it finished).
	LastExitTime time.Time
}

// OnPod returns r, the record a pod carries, as its replica is: a replica's
// first start is written late (tfsupervisor's FirstStartDefer), so a pod
// that runs (phase Running, not being deleted) with no record yet runs its
// first start.
func (r Replica) OnPod(running bool) Replica {
	if r.State == "" && running {
		r.State, r.Reason = StateRunning, "Started"
	}
	return r
}

// Annotations returns r as the pod annotations that hold it.
func (r Replica) Annotations() map[string]string {
	a := map[string]string{
		AnnotationState:    string(r.State),
		AnnotationRestarts: strconv.Itoa(int(r.Restarts)),
		AnnotationReason:   r.Reason,
	}
	if r.LastExitCode != nil {
		a[AnnotationLastExitCode] = strconv.Itoa(int(*r.LastExitCode))
	}
	if r.LastExitID != "" {
		a[AnnotationLastExitID] = r.LastExitID
	}
	if r.Generation > 0 {
		a[AnnotationGeneration] = strconv.Itoa(int(r.Generation))
	}
	if r.Message != "" {
		m := r.Message
		if len(m) > MaxMessage {
			m = m[:MaxMessage-3] + "..."
		}
		a[AnnotationMessage] = m
	}
	if r.LogTail != "" {
		a[AnnotationLogTail] = Tail(r.LogTail)
	}
	if !r.LastExitTime.IsZero() {
		a[AnnotationLastExitTime] = r.LastExitTime.UTC().Format(exitTimeLayout)
	}
	return a
}

// HeldBy reports whether on, the record as its pod carries it, holds r's
// last word: its state, restarts, reason and last exit. A merge patch
// leaves an emptied annotation as it was, so the fields r may leave empty
// are compared only where r has them.
func (r Replica) HeldBy(on Replica) bool {
	if r.State != on.State || r.Restarts != on.Restarts || r.Reason != on.Reason {
		return false
	}
	if r.LastExitCode != nil && (on.LastExitCode == nil || *r.LastExitCode != *on.LastExitCode) {
		return false
	}
	return r.LastExitID == "" || r.LastExitID == on.LastExitID
}

// ReplicaFromAnnotations reads a replica's record from its pod's
// annotations; ok is false when its supervisor has written none. Numbers
// that do not parse read as absent.
func ReplicaFromAnnotations(a map[string]string) (r Replica, ok bool) {
	st, ok := a[AnnotationState]
	if !ok || st == "" {
		return Replica{}, false
	}
	r = Replica{State: State(st), Reason: a[AnnotationReason], LastExitID: a[AnnotationLastExitID], Message: a[AnnotationMessage],
		LogTail: a[AnnotationLogTail]}
	if n, err := strconv.ParseInt(a[AnnotationRestarts], 10, 32); err == nil && n >= 0 {
		r.Restarts = int32(n)
	}
	if n, err := strconv.ParseInt(a[AnnotationGeneration], 10, 32); err == nil && n >= 0 {
		r.Generation = int32(n)
	}
	if t, err := time.Parse(exitTimeLayout, a[AnnotationLastExitTime]); err == nil {
		r.LastExitTime = t
	}
	if n, err := strconv.ParseInt(a[AnnotationLastExitCode], 10, 32); err == nil {
		code := int32(n)
		r.LastExitCode = &code
	}
	return r, true
}
