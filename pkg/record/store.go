package record

import (
	"context"
	"errors"
	"sync"
)

// ErrNoChange, returned by an update function, ends Store.Update without
// writing; Update then returns the status as read and no error.
var ErrNoChange = errors.New("record: no change")

// Store reads and updates one job's status.
type Store interface {
	// Get returns the current status.
	Get(ctx context.Context) (*Status, error)
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
	mu sync.Mutex
	s  Status
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
	c.Recount()
	m.s = *c.DeepCopy()
	return c, nil
}
