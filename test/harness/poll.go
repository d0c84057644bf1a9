package harness

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// Condition reports whether the state waited for is reached, and what it
// saw instead (shown if the wait fails).
type Condition func(ctx context.Context) (done bool, seen string, err error)

// Poller waits for a Condition with a deadline.
type Poller struct {
	// Interval is the time between two calls of the condition.
	Interval time.Duration
	// Timeout is how long it may take before the test fails.
	Timeout time.Duration
	// RetryErrors makes an error from the condition count as not yet
	// (shown if nothing else was seen); else the error ends the wait and
	// fails the test.
	RetryErrors bool
}

// Poll calls cond every p.Interval until it is done; t fails with what and
// cond's last word if p.Timeout passes first.
func (p Poller) Poll(t testing.TB, what string, cond Condition) {
	t.Helper()
	seen := ""
	err := wait.PollUntilContextTimeout(t.Context(), p.Interval, p.Timeout, true, func(ctx context.Context) (bool, error) {
		done, state, err := cond(ctx)
		if err != nil && p.RetryErrors {
			if seen == "" {
				seen = err.Error()
			}
			return false, nil
		}
		seen = state
		return done, err
	})
	switch {
	case err == nil:
	case seen == "":
		t.Fatalf("waiting for %s: %v", what, err)
	default:
		t.Fatalf("waiting for %s: %v; last seen: %s", what, err, seen)
	}
}
