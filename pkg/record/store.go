package record

import (
	"context"
	"errors"
	"sync"
)

// ErrNoChange, returned by an update function, ends Store.Update without
// writing; Update then returns the status as read and no error.
var ErrNoChange = errors.New("record: no change")

// Source reads and follows one job's status: what every replica's
// supervisor needs of it.
type Source interface {
	// Get returns the current status.
	Get(ctx context.Context) (*Status, error)
	// Watch sends the status as first read, then again after it changed
	// (a receiver that falls behind gets the latest, not every version),
	// until ctx ends, when it closes the channel. Errors are retried
	// inside: a receiver only ever sees statuses.
	Watch(ctx context.Context) <-chan *Status
}

// Store is the status as its writers have it: the job's keeper, and
// `tfgen suspend`, `resume` and `scale`.
type Store interface {
	Source
	// Update reads the status, applies mutate to it and writes it back
	// only if nobody wrote in between, retrying from the read on conflict;
	// mutate may therefore run more than once and must derive everything
	// from the status it is given. It returns the status written.
	Update(ctx context.Context, mutate func(*Status) error) (*Status, error)
}

// Memory is a Store held in memory, for a job whose replicas all run in
// one process (standalone supervision, `tfgen run`). The zero value is an
// empty job.
type Memory struct {
	mu      sync.Mutex
	s       Status
	version int
	changed chan struct{} // closed and replaced at each change
}

var _ Store = (*Memory)(nil)

// Get implements Store.
func (m *Memory) Get(context.Context) (*Status, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.s.DeepCopy(), nil
}

// Update implements Store.
func (m *Memory) Update(_ context.Context, mutate func(*Status) error) (*Status, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.s.DeepCopy()
	if err := mutate(c); errors.Is(err, ErrNoChange) {
		return m.s.DeepCopy(), nil
	} else if err != nil {
		return nil, err
	}
	m.s = *c.DeepCopy()
	m.version++
	if m.changed != nil {
		close(m.changed)
		m.changed = nil
	}
	return c, nil
}

// Watch implements Store.
func (m *Memory) Watch(ctx context.Context) <-chan *Status {
	return Follow(ctx, func(since int) (*Status, int, <-chan struct{}) {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.changed == nil {
			m.changed = make(chan struct{})
		}
		if m.version == since {
			return nil, since, m.changed
		}
		return m.s.DeepCopy(), m.version, m.changed
	})
}

// Follow implements Store.Watch over a status kept in memory: latest
// returns a copy of the status when its version is not since (else nil),
// the version, and a channel closed at the next change. Follow sends each
// new version, the latest only to a receiver that falls behind, until ctx
// ends, when it closes the channel.
func Follow(ctx context.Context, latest func(since int) (s *Status, version int, changed <-chan struct{})) <-chan *Status {
	out := make(chan *Status)
	go func() {
		defer close(out)
		sent := -1
		for {
			s, version, changed := latest(sent)
			if s != nil {
				select {
				case out <- s:
					sent = version
					continue
				case <-ctx.Done():
					return
				}
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}
