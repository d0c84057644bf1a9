package record

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/tfgen/tfgen/pkg/kube"
)

// ConfigMapClient reads and writes ConfigMaps; *rest.Client implements it.
type ConfigMapClient interface {
	GetConfigMap(ctx context.Context, ns, name string) (*kube.ConfigMap, error)
	UpdateConfigMap(ctx context.Context, cm *kube.ConfigMap) (*kube.ConfigMap, error)
}

// ConfigMapWatcher watches a ConfigMap; *rest.Client implements it.
type ConfigMapWatcher interface {
	// WatchConfigMap sends the ConfigMap as read, then each version,
	// retrying errors (passed to logf), until ctx ends.
	WatchConfigMap(ctx context.Context, ns, name string, logf func(string, ...any)) <-chan *kube.ConfigMap
}

// writeRetry paces the retries of a write that lost a race or met a
// transient API error, until the caller's context ends: a conflict is
// worth trying again soon (5 ms, doubling to 1 s, fully jittered).
// (client-go's wait.Backoff cannot do this: reaching its Cap ends its
// steps, and with 50 replicas writing at once, updates then get lost.)
var writeRetry = kube.Retry{Initial: 5 * time.Millisecond, Max: time.Second}

// ConfigMap is the Store of a job's record ConfigMap: the status is the
// JSON under DataKey; updates are Get, mutate, Update with the
// resourceVersion read, retried from the Get on Conflict.
//
// An update starts from the ConfigMap as this store last read or wrote
// it, when it has one, and reads it again only after a Conflict: a
// replica is often the last to have written, and its restart then costs
// one round trip instead of two. The write lands only if that copy was
// current, so nothing is decided on stale data except what cannot go
// stale: that the job has ended, and this replica's own entry.
type ConfigMap struct {
	// Client makes the calls.
	Client ConfigMapClient
	// Watcher follows the ConfigMap for Watch; a store that is only
	// updated needs none.
	Watcher ConfigMapWatcher
	// Namespace and Name of the record ConfigMap (the job's name).
	Namespace, Name string

	// Logf logs the errors a watch retries; nil discards them.
	Logf func(string, ...any)

	mu   sync.Mutex
	last *kube.ConfigMap // as last read or written
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

// Update implements Store. It retries from the Get on Conflict, and on
// transient API errors, until ctx ends.
func (c *ConfigMap) Update(ctx context.Context, mutate func(*Status) error) (*Status, error) {
	var out *Status
	err := writeRetry.Do(ctx, func(ctx context.Context) (err error) {
		out, err = c.update(ctx, mutate)
		return err
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("update job status in configmap %s/%s: %w", c.Namespace, c.Name, err)
	}
	return out, nil
}

// update makes one attempt: Get (or take the last copy), mutate, Update
// with the resourceVersion read. Only the API server's answers are worth
// another attempt.
func (c *ConfigMap) update(ctx context.Context, mutate func(*Status) error) (*Status, error) {
	cm := c.cached()
	if cm == nil {
		var err error
		if cm, err = c.Client.GetConfigMap(ctx, c.Namespace, c.Name); err != nil {
			return nil, err
		}
		c.remember(cm)
	}
	s, err := Parse(cm.Data)
	if err != nil {
		return nil, kube.Final(err)
	}
	if err := mutate(s); errors.Is(err, ErrNoChange) {
		return s, nil
	} else if err != nil {
		return nil, kube.Final(err)
	}
	raw, err := s.Marshal()
	if err != nil {
		return nil, kube.Final(err)
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data[DataKey] = raw
	out, err := c.Client.UpdateConfigMap(ctx, cm)
	if err != nil {
		c.remember(nil)
		return nil, err
	}
	c.remember(out)
	return s, nil
}

// cached returns a copy of the ConfigMap as last read or written, or nil.
func (c *ConfigMap) cached() *kube.ConfigMap {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last == nil {
		return nil
	}
	cm := *c.last
	cm.Data = maps.Clone(c.last.Data)
	return &cm
}

func (c *ConfigMap) remember(cm *kube.ConfigMap) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last = cm
	if cm != nil {
		c.last = &kube.ConfigMap{}
		*c.last = *cm
		c.last.Data = maps.Clone(cm.Data)
	}
}

// Watch implements Store. A status that does not parse is logged and
// skipped.
func (c *ConfigMap) Watch(ctx context.Context) <-chan *Status {
	logf := c.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if c.Watcher == nil {
		panic("record: Watch of a ConfigMap store without a Watcher")
	}
	cms := c.Watcher.WatchConfigMap(ctx, c.Namespace, c.Name, logf)
	out := make(chan *Status)
	go func() {
		defer close(out)
		for cm := range cms {
			s, err := Parse(cm.Data)
			if err != nil {
				logf("configmap %s/%s: %v", c.Namespace, c.Name, err)
				continue
			}
			select {
			case out <- s:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}
