package kube

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
)

// watchTimeout is how long the server keeps one watch open; the client
// then watches again from the last resourceVersion seen.
const watchTimeout = 5 * time.Minute

// WatchPod follows pod ns/name: it sends the pod as first read, then every
// version the API reports, until ctx is done, when it closes the channel.
// Errors (API unreachable, watch expired) are passed to logf and followed
// by a fresh read after a capped backoff, so a caller only ever sees pods.
func (c *Client) WatchPod(ctx context.Context, ns, name string, logf func(string, ...any)) <-chan *Pod {
	out := make(chan *Pod, 16)
	go func() {
		defer close(out)
		delay := 100 * time.Millisecond
		for ctx.Err() == nil {
			err := c.watchPodOnce(ctx, ns, name, out)
			if ctx.Err() != nil {
				return
			}
			logf("watch pod %s/%s: %v; again in %v", ns, name, err, delay)
			select {
			case <-ctx.Done():
				return
			case <-time.After(delay):
			}
			delay = min(2*delay, 5*time.Second)
		}
	}()
	return out
}

// watchPodOnce reads the pod, then watches it until an error.
func (c *Client) watchPodOnce(ctx context.Context, ns, name string, out chan<- *Pod) error {
	p, err := c.GetPod(ctx, ns, name)
	if err != nil {
		return err
	}
	if !send(ctx, out, p) {
		return ctx.Err()
	}
	rv := p.ResourceVersion
	for {
		q := url.Values{"watch": {"true"}, "fieldSelector": {"metadata.name=" + name}, "resourceVersion": {rv},
			"allowWatchBookmarks": {"true"}, "timeoutSeconds": {strconv.Itoa(int(watchTimeout.Seconds()))}}
		resp, err := c.request(ctx, http.MethodGet, corePath(ns, "pods"), q, "", nil)
		if err != nil {
			return fmt.Errorf("watch: %w", err)
		}
		rv, err = readWatch(ctx, resp.Body, rv, out)
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

// readWatch passes the stream's pods to out and returns the last
// resourceVersion seen; a clean end of stream is no error.
func readWatch(ctx context.Context, body io.Reader, rv string, out chan<- *Pod) (string, error) {
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
		p := &Pod{}
		if err := json.Unmarshal(ev.Object, p); err != nil {
			return rv, fmt.Errorf("watch event: %w", err)
		}
		rv = p.ResourceVersion
		if ev.Type == "ADDED" || ev.Type == "MODIFIED" {
			if !send(ctx, out, p) {
				return rv, ctx.Err()
			}
		}
	}
}

func send(ctx context.Context, out chan<- *Pod, p *Pod) bool {
	select {
	case out <- p:
		return true
	case <-ctx.Done():
		return false
	}
}
