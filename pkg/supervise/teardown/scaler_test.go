package teardown

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tfgen/tfgen/pkg/kube"
)

type fakeScale struct {
	mu       sync.Mutex
	failures map[string][]error // errors to return, in order, per name
	done     []string
}

func (f *fakeScale) ScaleStatefulSet(_ context.Context, _, name string, replicas int32) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if errs := f.failures[name]; len(errs) > 0 {
		f.failures[name] = errs[1:]
		return errs[0]
	}
	f.done = append(f.done, name)
	return nil
}

func TestScalerStop(t *testing.T) {
	down := errors.New("dial tcp 127.0.0.1:6443: connect: connection refused")
	f := &fakeScale{failures: map[string][]error{
		"j-ps":     {down, down, &kube.APIError{Code: 503, Reason: "ServiceUnavailable"}},
		"j-worker": {&kube.APIError{Code: 404, Reason: "NotFound"}},
		"j-tuner":  {&kube.APIError{Code: 422, Reason: "Invalid"}},
		"j-eval":   {&kube.APIError{Code: 403, Reason: "Forbidden"}}, // retried: RBAC may come late
		"j-chief":  {down},
	}}
	s := &Scaler{Client: f, Namespace: "ns", Job: "j", Initial: time.Millisecond, Max: 2 * time.Millisecond}
	err := s.Stop(context.Background(), []string{"ps", "worker", "tuner", "eval", "chief"})
	if err == nil || !strings.Contains(err.Error(), "stop j-tuner") || strings.Contains(err.Error(), "j-ps") {
		t.Errorf("error %v: want only the refusal of j-tuner", err)
	}
	if len(f.done) != 3 || f.done[2] != "j-chief" {
		t.Errorf("scaled %v: want j-ps and j-eval, then j-chief last", f.done)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f.failures["j-ps"] = []error{down}
	if err := s.Stop(ctx, []string{"ps"}); err == nil || !strings.Contains(err.Error(), "gave up") {
		t.Errorf("with the time up: %v", err)
	}
}
