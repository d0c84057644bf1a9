package kube_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tfgen/tfgen/pkg/kube"
)

func TestDelayBounds(t *testing.T) {
	p := kube.Retry{Initial: 100 * time.Millisecond, Max: time.Second}
	transient := &kube.APIError{Code: 503}
	for _, tc := range []struct {
		n     int
		bound time.Duration
	}{{1, 100 * time.Millisecond}, {2, 200 * time.Millisecond}, {4, 800 * time.Millisecond}, {5, time.Second}, {60, time.Second}} {
		seen := map[bool]bool{}
		for range 200 {
			d := p.Delay(tc.n, transient)
			if d < 0 || d > tc.bound {
				t.Fatalf("Delay(%d) = %v, want within [0, %v]", tc.n, d, tc.bound)
			}
			seen[d > tc.bound/2] = true
		}
		if !seen[true] || !seen[false] {
			t.Errorf("Delay(%d): 200 waits all on one side of %v: not jittered", tc.n, tc.bound/2)
		}
	}
	busy := &kube.APIError{Code: 429, RetryAfter: 3 * time.Second}
	for range 100 {
		if d := p.Delay(1, busy); d < 3*time.Second || d > 6*time.Second {
			t.Fatalf("Delay after Retry-After 3s = %v, want within [3s, 6s]", d)
		}
	}
}

func TestDo(t *testing.T) {
	p := kube.Retry{Initial: time.Millisecond, Max: time.Millisecond}
	for _, tc := range []struct {
		name      string
		attempts  int
		errs      []error
		wantCalls int
		wantErr   bool
	}{
		{"succeeds after transient errors", 0, []error{&kube.APIError{Code: 500}, &kube.APIError{Code: 403}, nil}, 3, false},
		{"an invalid request is not retried", 0, []error{&kube.APIError{Code: 422}}, 1, true},
		{"a final error is not retried", 0, []error{kube.Final(errors.New("bad status"))}, 1, true},
		{"attempts cap the calls", 2, []error{&kube.APIError{Code: 500}, &kube.APIError{Code: 500}, nil}, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := p
			p.Attempts = tc.attempts
			calls, retried := 0, 0
			err := p.Do(context.Background(), func(context.Context) error {
				calls++
				return tc.errs[calls-1]
			}, func(int, error, time.Duration) { retried++ })
			if calls != tc.wantCalls || (err != nil) != tc.wantErr {
				t.Errorf("%d calls, error %v; want %d calls, error %v", calls, err, tc.wantCalls, tc.wantErr)
			}
			if want := calls - 1; !tc.wantErr && retried != want {
				t.Errorf("told of %d retries, want %d", retried, want)
			}
		})
	}
}

func TestDoEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := kube.Retry{Initial: time.Hour, Max: time.Hour}
	err := p.Do(ctx, func(context.Context) error { return &kube.APIError{Code: 503} },
		func(int, error, time.Duration) { cancel() })
	var ae *kube.APIError
	if !errors.As(err, &ae) || ae.Code != 503 {
		t.Fatalf("error %v, want the last error once the context ended", err)
	}
}
