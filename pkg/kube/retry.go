package kube

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Retry is the one policy by which tfsupervisor retries a call to the
// API server: what cannot succeed is not retried (IsPermanent, or an
// error marked Final); otherwise each wait is exponential, capped and
// fully jittered (a random time up to the bound, so that a thousand
// replicas refused at once come back spread out), and at least what a
// busy server asked for (Retry-After). Every caller of the API uses it,
// with bounds of its own.
type Retry struct {
	// Initial bounds the wait after the first failure; each further
	// failure doubles the bound, up to Max.
	Initial, Max time.Duration
	// Attempts caps the calls; 0 calls until the context ends.
	Attempts int
	// Timeout bounds each call; 0 leaves it to the context.
	Timeout time.Duration
}

// DefaultRetry is the policy of a call whose result the job needs (a
// replica's record, the job's status, a teardown): 100 ms doubling to
// 5 s, until the caller's context ends.
var DefaultRetry = Retry{Initial: 100 * time.Millisecond, Max: 5 * time.Second}

// Delay returns the wait after failure n (from 1) with err: a random time
// up to min(Max, Initial·2ⁿ⁻¹); when the server asked to wait (Retry-After
// d), between d and 2d.
func (p Retry) Delay(n int, err error) time.Duration {
	if ra := RetryAfter(err); ra > 0 {
		return ra + rand.N(ra+1)
	}
	bound := p.Initial
	for i := 1; i < n && bound < p.Max; i++ {
		bound *= 2
	}
	bound = min(bound, max(p.Max, p.Initial))
	if bound <= 0 {
		return 0
	}
	return rand.N(bound + 1)
}

// Final marks err as one that retrying cannot change.
func Final(err error) error {
	if err == nil {
		return nil
	}
	return finalError{err}
}

type finalError struct{ err error }

func (e finalError) Error() string { return e.err.Error() }
func (e finalError) Unwrap() error { return e.err }

// IsFinal reports whether retrying the call that failed with err cannot
// help: the API server answered that the request is invalid or about
// something that does not exist (IsPermanent), or err is marked Final.
func IsFinal(err error) bool {
	var f finalError
	return errors.As(err, &f) || IsPermanent(err)
}

// Do calls call until it succeeds, fails for good (IsFinal), has made
// Attempts calls, or ctx ends, and returns the last error, saying how
// many attempts were made when it gave up. retried, when not nil, hears
// of each failure that is retried and the wait before the next attempt.
func (p Retry) Do(ctx context.Context, call func(context.Context) error, retried func(attempt int, err error, wait time.Duration)) error {
	for n := 1; ; n++ {
		err := p.call(ctx, call)
		if err == nil || IsFinal(err) {
			return err
		}
		if n == p.Attempts {
			return fmt.Errorf("gave up after %d attempts: %w", n, err)
		}
		wait := p.Delay(n, err)
		if retried != nil {
			retried(n, err, wait)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("gave up after %d attempts: %w", n, err)
		case <-t.C:
		}
	}
}

func (p Retry) call(ctx context.Context, call func(context.Context) error) error {
	if p.Timeout <= 0 {
		return call(ctx)
	}
	ctx, cancel := context.WithTimeout(ctx, p.Timeout)
	defer cancel()
	return call(ctx)
}
