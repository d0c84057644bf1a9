package supervise

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// RestartPolicy says when a replica's training process is restarted.
type RestartPolicy string

// Restart policies, as in Kubeflow.
const (
	// Never restarts: the first exit is final.
	Never RestartPolicy = "Never"
	// OnFailure restarts after a non-zero exit.
	OnFailure RestartPolicy = "OnFailure"
	// Always restarts after every failure, like OnFailure. A replica that
	// exited 0 has finished its work and is never run again (DESIGN 4.7);
	// this is also what the kubelet's restart rules do in sidecar mode.
	// Kubeflow restarts it, so a chief under Always never completes there.
	Always RestartPolicy = "Always"
	// ExitCode restarts after a retryable exit code: by default 128-255
	// (killed by a signal) are retryable and 1-127 permanent.
	ExitCode RestartPolicy = "ExitCode"
)

// ParseRestartPolicy reads a restart policy; "" is Never.
func ParseRestartPolicy(s string) (RestartPolicy, error) {
	switch p := RestartPolicy(s); p {
	case "":
		return Never, nil
	case Never, OnFailure, Always, ExitCode:
		return p, nil
	}
	return "", fmt.Errorf("restart policy %q: want Never, OnFailure, Always or ExitCode", s)
}

// Policy is a replica's restart policy with its limits.
type Policy struct {
	// Restart is the restart policy.
	Restart RestartPolicy
	// RetryableExitCodes, when not nil, replaces ExitCode's default rule:
	// exactly these codes are retryable.
	RetryableExitCodes []int32
	// MaxRestarts caps this replica's restarts; nil means no cap.
	MaxRestarts *int32
	// Backoff paces the restarts; the zero value restarts at once.
	Backoff Backoff
}

// Retryable reports whether exit code is retryable under ExitCode.
func (p *Policy) Retryable(code int) bool {
	if p.RetryableExitCodes != nil {
		return slices.Contains(p.RetryableExitCodes, int32(code))
	}
	return code >= 128 && code <= 255
}

// ShouldRestart reports whether the policy restarts a process that
// exited with code (before any limit is applied).
func (p *Policy) ShouldRestart(code int) bool {
	switch p.Restart {
	case Always, OnFailure:
		return code != 0
	case ExitCode:
		return code != 0 && p.Retryable(code)
	}
	return false
}

// Backoff is an exponential backoff: Initial, doubled at each consecutive
// restart, capped at Max.
type Backoff struct {
	Initial, Max time.Duration
}

// DefaultBackoff is the backoff when none is given.
var DefaultBackoff = Backoff{Initial: time.Second, Max: 5 * time.Minute}

// ResetAfter is how long a process must have run for its next restart to
// start the backoff from Initial again (the kubelet's rule).
const ResetAfter = 10 * time.Minute

// Delay returns the wait before restart n (1 for the first).
func (b Backoff) Delay(n int) time.Duration {
	d := b.Initial
	for i := 1; i < n && d > 0 && d < b.Max; i++ {
		d *= 2
	}
	return min(d, max(b.Max, b.Initial))
}

// ParseBackoff reads INITIAL[,MAX] ("1s,5m"); MAX defaults to
// DefaultBackoff.Max, or to INITIAL when that is larger.
func ParseBackoff(s string) (Backoff, error) {
	first, second, hasMax := strings.Cut(s, ",")
	var b Backoff
	var err error
	if b.Initial, err = time.ParseDuration(strings.TrimSpace(first)); err != nil || b.Initial < 0 {
		return b, fmt.Errorf("restart backoff %q: want INITIAL[,MAX] durations such as 1s,5m", s)
	}
	b.Max = max(DefaultBackoff.Max, b.Initial)
	if hasMax {
		if b.Max, err = time.ParseDuration(strings.TrimSpace(second)); err != nil || b.Max < b.Initial {
			return b, fmt.Errorf("restart backoff %q: MAX must be a duration no smaller than INITIAL", s)
		}
	}
	return b, nil
}

// ParseExitCodes reads a comma-separated list of exit codes (0-255) and
// ranges of them ("130,137,143" or "128-255"), in order, each code once.
func ParseExitCodes(s string) ([]int32, error) {
	codes := []int32{}
	seen := map[int]bool{}
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(f, "-")
		from, err1 := exitCode(lo)
		to, err2 := from, error(nil)
		if isRange {
			to, err2 = exitCode(hi)
		}
		if err1 != nil || err2 != nil || to < from {
			return nil, fmt.Errorf("exit code %q: want a number 0-255 or a range such as 128-255", f)
		}
		for n := from; n <= to; n++ {
			if !seen[n] {
				seen[n] = true
				codes = append(codes, int32(n))
			}
		}
	}
	return codes, nil
}

func exitCode(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 || n > 255 {
		return 0, fmt.Errorf("not an exit code")
	}
	return n, nil
}
