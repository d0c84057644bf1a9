package record

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"

	"github.com/tfgen/tfgen/pkg/kube"
)

// ConfigMapClient reads and writes ConfigMaps; *kube.Client implements it.
type ConfigMapClient interface {
	GetConfigMap(ctx context.Context, ns, name string) (*kube.ConfigMap, error)
	UpdateConfigMap(ctx context.Context, cm *kube.ConfigMap) (*kube.ConfigMap, error)
}

var _ ConfigMapClient = (*kube.Client)(nil)

// ConflictBackoff paces the retries of an update that lost a race (many
// replicas may write at once, so the waits are short, jittered and many)
// or met a transient error.
var ConflictBackoff = wait.Backoff{Duration: 5 * time.Millisecond, Factor: 1.5, Jitter: 1, Steps: 40, Cap: time.Second}

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

// retriable: a Conflict, or an API error that retrying may cure (the
// server unreachable, overloaded or timing out), while ctx lasts.
func retriable(ctx context.Context) func(error) bool {
	return func(err error) bool {
		var ae apiError
		return errors.As(err, &ae) && ctx.Err() == nil && !kube.IsPermanent(err)
	}
}

// Update implements Store. It retries from the Get on Conflict, and on
// transient API errors until ctx ends.
func (c *ConfigMap) Update(ctx context.Context, mutate func(*Status) error) (*Status, error) {
	var out *Status
	err := retry.OnError(ConflictBackoff, retriable(ctx), func() error {
		cm, err := c.Client.GetConfigMap(ctx, c.Namespace, c.Name)
		if err != nil {
			return apiError{err}
		}
		s, err := Parse(cm.Data)
		if err != nil {
			return err
		}
		if err := mutate(s); errors.Is(err, ErrNoChange) {
			out = s
			return nil
		} else if err != nil {
			return err
		}
		s.Recount()
		raw, err := s.Marshal()
		if err != nil {
			return err
		}
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data[DataKey] = raw
		if _, err := c.Client.UpdateConfigMap(ctx, cm); err != nil {
			return apiError{err}
		}
		out = s
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("update job status in configmap %s/%s: %w", c.Namespace, c.Name, err)
	}
	return out, nil
}
