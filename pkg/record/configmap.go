package record

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/tfgen/tfgen/pkg/kube"
)

// ConfigMapClient reads and writes ConfigMaps; *kube.Client implements it.
type ConfigMapClient interface {
	GetConfigMap(ctx context.Context, ns, name string) (*kube.ConfigMap, error)
	UpdateConfigMap(ctx context.Context, cm *kube.ConfigMap) (*kube.ConfigMap, error)
}

var _ ConfigMapClient = (*kube.Client)(nil)

// Backoff paces the retries of an update that lost a race or met a
// transient API error: before retry n it waits a random time up to
// min(Max, Base<<n) ("full jitter", which spreads many replicas writing
// at once), and it keeps retrying until the caller's context ends.
// (client-go's wait.Backoff cannot do this: reaching its Cap ends its
// steps, and with 50 replicas writing at once, updates then get lost.)
var Backoff = struct{ Base, Max time.Duration }{Base: 5 * time.Millisecond, Max: time.Second}

// ConfigMap is the Store of a job's record ConfigMap: the status is the
// JSON under DataKey; updates are Get, mutate, Update with the
// resourceVersion read, retried from the Get on Conflict.
type ConfigMap struct {
	// Client makes the calls.
	Client ConfigMapClient
	// Namespace and Name of the record ConfigMap (the job's name).
	Namespace, Name string
}

var _ Store = (*ConfigMap)(nil)

// Get implements Store.
func (c *ConfigMap) Get(ctx context.Context) (*Status, error) {
	cm, err := c.Client.GetConfigMap(ctx, c.Namespace, c.Name)
	if err != nil {
		return nil, fmt.Errorf("read job status: %w", err)
	}
	return Parse(cm.Data)
}

// apiError marks an error from the API server, which Update may retry.
type apiError struct{ err error }

func (e apiError) Error() string { return e.err.Error() }
func (e apiError) Unwrap() error { return e.err }

// Update implements Store. It retries from the Get on Conflict, and on
// transient API errors, until ctx ends.
func (c *ConfigMap) Update(ctx context.Context, mutate func(*Status) error) (*Status, error) {
	for n := 0; ; n++ {
		out, err := c.update(ctx, mutate)
		if err == nil {
			return out, nil
		}
		var ae apiError
		if !errors.As(err, &ae) || kube.IsPermanent(err) {
			return nil, fmt.Errorf("update job status in configmap %s/%s: %w", c.Namespace, c.Name, err)
		}
		wait := time.Duration(rand.Int64N(int64(min(Backoff.Max, Backoff.Base<<min(n, 20))) + 1))
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("update job status in configmap %s/%s: gave up after %d attempts: %w", c.Namespace, c.Name, n+1, err)
		case <-time.After(wait):
		}
	}
}

// update makes one attempt: Get, mutate, Update with the resourceVersion
// read.
func (c *ConfigMap) update(ctx context.Context, mutate func(*Status) error) (*Status, error) {
	cm, err := c.Client.GetConfigMap(ctx, c.Namespace, c.Name)
	if err != nil {
		return nil, apiError{err}
	}
	s, err := Parse(cm.Data)
	if err != nil {
		return nil, err
	}
	if err := mutate(s); errors.Is(err, ErrNoChange) {
		return s, nil
	} else if err != nil {
		return nil, err
	}
	s.Recount()
	raw, err := s.Marshal()
	if err != nil {
		return nil, err
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data[DataKey] = raw
	if _, err := c.Client.UpdateConfigMap(ctx, cm); err != nil {
		return nil, apiError{err}
	}
	return s, nil
}
