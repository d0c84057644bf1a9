package harness

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/tfgen/tfgen/pkg/kube"
)

// object is an object of a typed client (*corev1.Pod...).
type object interface {
	runtime.Object
	GetName() string
}

// collection is how to list and watch one kind of object in a namespace,
// narrowed by opts.
type collection[T object] struct {
	list  func(ctx context.Context, opts metav1.ListOptions) (items []T, resourceVersion string, err error)
	watch func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
	opts  metav1.ListOptions
}

// until lists c's objects and watches them from that list until done
// holds, or ctx ends. done is given every object by name, as the API
// server last told it, and the objects just told: all of them after a
// list, one after an added or changed one, none after a deletion, so that
// it sees every state in order. A list or watch that fails lists again
// after retry's pause (a busy API server times requests out); a watch
// that ends (it expires) lists again at once, with the pause started
// afresh. It returns ctx's error, with the last failed call's if any (or
// the error of a call kube.IsFinal says retrying cannot help, which
// client-go's errors never are).
func until[T object](ctx context.Context, c collection[T], done func(all map[string]T, told []T) bool) error {
	var last error
	round := func(ctx context.Context) error {
		items, rv, err := c.list(ctx, c.opts)
		if err != nil {
			return err
		}
		all := make(map[string]T, len(items))
		for _, o := range items {
			all[o.GetName()] = o
		}
		if done(all, items) {
			return nil
		}
		opts := c.opts
		opts.ResourceVersion = rv
		w, err := c.watch(ctx, opts)
		if err != nil {
			return err
		}
		if follow(ctx, w, all, done) {
			return nil
		}
		return errWatchEnded
	}
	noteFailure := func(_ int, err error, _ time.Duration) {
		if ctx.Err() == nil {
			last = err
		}
	}
	err := retry.Do(ctx, round, noteFailure)
	for errors.Is(err, errWatchEnded) && ctx.Err() == nil {
		err = retry.Do(ctx, round, noteFailure)
	}
	switch {
	case err == nil || ctx.Err() == nil:
		return err
	case last != nil:
		return fmt.Errorf("%w (last error: %v)", ctx.Err(), last)
	}
	return ctx.Err()
}

// errWatchEnded is a watch's end before done held: no failure, so final
// to retry, and until lists again with retry's pause started afresh.
var errWatchEnded = kube.Final(errors.New("the watch ended"))

// follow applies w's events to all until done holds (true), or w ends or
// reports an error, or ctx ends (false).
func follow[T object](ctx context.Context, w watch.Interface, all map[string]T, done func(map[string]T, []T) bool) bool {
	defer w.Stop()
	for {
		var ev watch.Event
		var open bool
		select {
		case <-ctx.Done():
			return false
		case ev, open = <-w.ResultChan():
		}
		if !open {
			return false
		}
		o, ok := ev.Object.(T)
		if !ok {
			if ev.Type == watch.Error { // such as 410 Gone: list again
				return false
			}
			continue
		}
		switch ev.Type {
		case watch.Added, watch.Modified:
			all[o.GetName()] = o
			if done(all, []T{o}) {
				return true
			}
		case watch.Deleted:
			delete(all, o.GetName())
			if done(all, nil) {
				return true
			}
		}
	}
}

// pointers returns pointers to a list's items.
func pointers[T any](items []T) []*T {
	out := make([]*T, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

// Retry calls call until it succeeds, fails for good (kube.IsFinal) or
// ctx ends, pausing between attempts as the supervisor does (kube.Retry:
// a random wait up to 100 ms, doubling up to 2 s), and returns its last
// error: a saturated API server times requests out (a large job's many
// supervisors), which says nothing of what a test checks.
func Retry(ctx context.Context, call func(context.Context) error) error {
	return retry.Do(ctx, call, nil)
}

// retry paces Retry and the waits' lists and watches.
var retry = kube.Retry{Initial: 100 * time.Millisecond, Max: 2 * time.Second}
