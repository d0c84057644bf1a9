package teardown

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tfgen/tfgen/pkg/kube"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// ScaleClient scales StatefulSets; *kube.Client has it.
type ScaleClient interface {
	ScaleStatefulSet(ctx context.Context, ns, name string, replicas int32) error
}

var _ ScaleClient = (*kube.Client)(nil)

// Scaler scales a job's StatefulSets to zero.
type Scaler struct {
	// Client makes the calls.
	Client ScaleClient
	// Namespace and Job name the StatefulSets: Namespace/Job-<type>.
	Namespace, Job string
	// Initial and Max bound the backoff between attempts (default 50ms,
	// 2s); the caller's context bounds the total time.
	Initial, Max time.Duration
	// Logf logs retries.
	Logf func(string, ...any)
}

var _ supervise.Teardown = (*Scaler)(nil)

// Stop implements supervise.Teardown: every type but the last at once,
// then the last (the caller's own). A StatefulSet that does not exist
// counts as stopped; a refusal (Forbidden, Invalid) is not retried.
func (s *Scaler) Stop(ctx context.Context, types []string) error {
	if len(types) == 0 {
		return nil
	}
	others, own := types[:len(types)-1], types[len(types)-1]
	errs := make([]error, len(others))
	var wg sync.WaitGroup
	for i, t := range others {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.scale(ctx, t)
		}()
	}
	wg.Wait()
	return errors.Join(append(errs, s.scale(ctx, own))...)
}

func (s *Scaler) scale(ctx context.Context, t string) error { return s.scaleTo(ctx, t, 0) }

func (s *Scaler) scaleTo(ctx context.Context, t string, n int32) error {
	name := s.Job + "-" + t
	delay, limit := s.Initial, s.Max
	if delay <= 0 {
		delay = 50 * time.Millisecond
	}
	if limit <= 0 {
		limit = 2 * time.Second
	}
	for attempt := 1; ; attempt++ {
		err := s.Client.ScaleStatefulSet(ctx, s.Namespace, name, n)
		switch {
		case err == nil:
			return nil
		case kube.IsNotFound(err):
			s.logf("statefulset %s/%s not found: nothing to stop", s.Namespace, name)
			return nil
		case kube.IsPermanent(err):
			return fmt.Errorf("stop %s: %w", name, err)
		}
		s.logf("stop %s (attempt %d): %v; again in %v", name, attempt, err, delay)
		select {
		case <-ctx.Done():
			return fmt.Errorf("stop %s: gave up after %d attempts: %w", name, attempt, err)
		case <-time.After(delay):
		}
		delay = min(2*delay, limit)
	}
}

func (s *Scaler) logf(format string, args ...any) {
	if s.Logf != nil {
		s.Logf(format, args...)
	}
}

var _ supervise.Shrinker = (*Scaler)(nil)

// Shrink implements supervise.Shrinker.
func (s *Scaler) Shrink(ctx context.Context, t string, keep int32) error {
	return s.scaleTo(ctx, t, keep)
}
