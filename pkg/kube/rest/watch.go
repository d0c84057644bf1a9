package rest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/tfgen/tfgen/pkg/kube"
)

// watchTimeout is how long the server keeps one watch open; the client
// then watches again from the last resourceVersion seen.
const watchTimeout = 5 * time.Minute

// metaObject is an object whose metadata a watch reads.
type metaObject interface {
	Meta() *kube.ObjectMeta
}

// WatchPod follows pod ns/name: it sends the pod as first seen, then every
// version the API reports, until ctx is done, when it closes the channel.
// Errors (API unreachable, watch expired) are passed to logf and followed
// by a new watch after a wait (DefaultRetry), so a caller only ever sees
// pods.
func (c *Client) WatchPod(ctx context.Context, ns, name string, logf func(string, ...any)) <-chan *kube.Pod {
	return watchNamed(ctx, c, ns, "pods", name, logf, func() *kube.Pod { return &kube.Pod{} })
}

// WatchConfigMap follows ConfigMap ns/name as WatchPod follows a pod; one
// that does not exist yet is sent once it does.
func (c *Client) WatchConfigMap(ctx context.Context, ns, name string, logf func(string, ...any)) <-chan *kube.ConfigMap {
	return watchNamed(ctx, c, ns, "configmaps", name, logf, func() *kube.ConfigMap { return &kube.ConfigMap{} })
}

// watchNamed follows one object of a core resource by name: one watch
// request from resourceVersion 0, which the API server answers from its
// watch cache with the object as it is (an ADDED event) and then its
// changes. A thousand replicas starting at once each make one request,
// not a read and a watch.
func watchNamed[T metaObject](ctx context.Context, c *Client, ns, resource, name string, logf func(string, ...any), fresh func() T) <-chan T {
	out := make(chan T, 16)
	go func() {
		defer close(out)
		q := url.Values{"fieldSelector": {"metadata.name=" + name}}
		retrying(ctx, logf, "watch "+resource+" "+ns+"/"+name, func() error {
			return c.watchFrom(ctx, corePath(ns, resource), q, ContentJSON, "0", func(typ string, raw json.RawMessage) error {
				if typ != kube.Added && typ != kube.Modified {
					return nil
				}
				obj := fresh()
				if err := json.Unmarshal(raw, obj); err != nil {
					return fmt.Errorf("watch event: %w", err)
				}
				if !send(ctx, out, obj) {
					return ctx.Err()
				}
				return nil
			})
		})
	}()
	return out
}

// WatchPods follows the pods of ns that match labelSelector (Pod's part
// of them): a Synced event with every pod first and again after each
// re-list (an expired watch, an error), then each change, until ctx is
// done, when it closes the channel. Errors are passed to logf and retried.
func (c *Client) WatchPods(ctx context.Context, ns, labelSelector string, logf func(string, ...any)) <-chan kube.PodEvent {
	return c.watchPods(ctx, ns, labelSelector, ContentJSON, ContentJSON, logf)
}

func (c *Client) watchPods(ctx context.Context, ns, labelSelector, acceptList, acceptWatch string, logf func(string, ...any)) <-chan kube.PodEvent {
	out := make(chan kube.PodEvent, 64)
	go func() {
		defer close(out)
		retrying(ctx, logf, "watch pods "+ns+" "+labelSelector, func() error {
			q := url.Values{"labelSelector": {labelSelector}}
			resp, err := c.requestAccept(ctx, http.MethodGet, corePath(ns, "pods"), q, acceptList)
			if err != nil {
				return fmt.Errorf("list pods: %w", err)
			}
			var list struct {
				Metadata kube.ObjectMeta `json:"metadata"`
				Items    []*kube.Pod     `json:"items"`
			}
			err = json.NewDecoder(resp.Body).Decode(&list)
			resp.Body.Close()
			if err != nil {
				return fmt.Errorf("list pods: decode the answer: %w", err)
			}
			if !send(ctx, out, kube.PodEvent{Type: kube.Synced, Pods: list.Items}) {
				return ctx.Err()
			}
			return c.watchFrom(ctx, corePath(ns, "pods"), q, acceptWatch, list.Metadata.ResourceVersion, func(typ string, raw json.RawMessage) error {
				if typ != kube.Added && typ != kube.Modified && typ != kube.Deleted {
					return nil
				}
				p := &kube.Pod{}
				if err := json.Unmarshal(raw, p); err != nil {
					return fmt.Errorf("watch event: %w", err)
				}
				if !send(ctx, out, kube.PodEvent{Type: typ, Pod: p}) {
					return ctx.Err()
				}
				return nil
			})
		})
	}()
	return out
}

// retrying runs attempt until ctx is done, logging each error and waiting
// by DefaultRetry before the next attempt. A watch that served a while
// before it broke starts over from the first wait.
func retrying(ctx context.Context, logf func(string, ...any), what string, attempt func() error) {
	for n := 1; ctx.Err() == nil; n++ {
		began := time.Now()
		err := attempt()
		if ctx.Err() != nil {
			return
		}
		if time.Since(began) > kube.DefaultRetry.Max {
			n = 1
		}
		wait := kube.DefaultRetry.Delay(n, err)
		logf("%s: %v; again in %v", what, err, wait.Round(time.Millisecond))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// watchFrom watches path (with query q) from resourceVersion rv, passing
// each event but bookmarks to handle, until an error; a watch that ends
// cleanly (the server's timeout) is started again from the last
// resourceVersion seen.
func (c *Client) watchFrom(ctx context.Context, path string, q url.Values, accept, rv string, handle func(typ string, raw json.RawMessage) error) error {
	for {
		wq := url.Values{"watch": {"true"}, "resourceVersion": {rv}, "allowWatchBookmarks": {"true"},
			"timeoutSeconds": {strconv.Itoa(int(watchTimeout.Seconds()))}}
		for k, v := range q {
			wq[k] = v
		}
		resp, err := c.requestAccept(ctx, http.MethodGet, path, wq, accept)
		if err != nil {
			return fmt.Errorf("watch: %w", err)
		}
		rv, err = readWatch(resp.Body, rv, handle)
		resp.Body.Close()
		if err != nil {
			return err
		}
	}
}

type rawEvent struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// readWatch passes the stream's events to handle and returns the last
// resourceVersion seen; a clean end of stream is no error.
func readWatch(body io.Reader, rv string, handle func(typ string, raw json.RawMessage) error) (string, error) {
	dec := json.NewDecoder(body)
	for {
		var ev rawEvent
		if err := dec.Decode(&ev); errors.Is(err, io.EOF) {
			return rv, nil
		} else if err != nil {
			return rv, fmt.Errorf("watch stream: %w", err)
		}
		if ev.Type == "ERROR" {
			var st struct {
				Code    int
				Message string
			}
			_ = json.Unmarshal(ev.Object, &st)
			return rv, fmt.Errorf("watch: %s (%d)", st.Message, st.Code)
		}
		var m struct {
			Metadata kube.ObjectMeta `json:"metadata"`
		}
		if err := json.Unmarshal(ev.Object, &m); err == nil && m.Metadata.ResourceVersion != "" {
			rv = m.Metadata.ResourceVersion
		}
		if ev.Type == "BOOKMARK" {
			continue
		}
		if err := handle(ev.Type, ev.Object); err != nil {
			return rv, err
		}
	}
}

func send[T any](ctx context.Context, out chan<- T, v T) bool {
	select {
	case out <- v:
		return true
	case <-ctx.Done():
		return false
	}
}
