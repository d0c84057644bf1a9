package rest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tfgen/tfgen/pkg/kube"
)

// server is a tiny API server: it records requests and answers from a
// handler per "METHOD path".
type server struct {
	mu       sync.Mutex
	requests []string
	handlers map[string]http.HandlerFunc
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests = append(s.requests, fmt.Sprintf("%s %s %s %s", r.Method, r.URL.Path, r.Header.Get("Content-Type"), body))
	if r.Header.Get("Authorization") != "Bearer t0k" {
		s.mu.Unlock()
		status(w, http.StatusUnauthorized, "Unauthorized")
		return
	}
	h := s.handlers[r.Method+" "+r.URL.Path]
	s.mu.Unlock()
	if h == nil {
		status(w, http.StatusNotFound, "NotFound")
		return
	}
	h(w, r)
}

func status(w http.ResponseWriter, code int, reason string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":%q,"code":%d,"message":"m"}`, reason, code)
}

func newClient(t *testing.T, handlers map[string]http.HandlerFunc) (*Client, *server) {
	s := &server{handlers: handlers}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	c, err := New(&Config{Host: ts.URL, Token: "t0k"})
	if err != nil {
		t.Fatal(err)
	}
	return c, s
}

func TestConfigMapConflict(t *testing.T) {
	c, s := newClient(t, map[string]http.HandlerFunc{
		"GET /api/v1/namespaces/ns/configmaps/j": func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(w, `{"metadata":{"name":"j","namespace":"ns","resourceVersion":"7","labels":{"a":"b"}},"data":{"spec.json":"{}"}}`)
		},
		"PUT /api/v1/namespaces/ns/configmaps/j": func(w http.ResponseWriter, _ *http.Request) { status(w, http.StatusConflict, "Conflict") },
	})
	cm, err := c.GetConfigMap(context.Background(), "ns", "j")
	if err != nil || cm.ResourceVersion != "7" || cm.Labels["a"] != "b" {
		t.Fatalf("GetConfigMap = %+v, %v", cm, err)
	}
	cm.Data["status.json"] = "{}"
	if _, err := c.UpdateConfigMap(context.Background(), cm); !kube.IsConflict(err) {
		t.Errorf("UpdateConfigMap error %v, want a Conflict", err)
	}
	put := s.requests[1]
	if !strings.HasPrefix(put, "PUT /api/v1/namespaces/ns/configmaps/j application/json {") ||
		!strings.Contains(put, `"resourceVersion":"7"`) || !strings.Contains(put, `"labels":{"a":"b"}`) || !strings.Contains(put, `"status.json":"{}"`) {
		t.Errorf("PUT did not send the object back whole: %s", put)
	}
}

func TestScaleAndPatch(t *testing.T) {
	ok := func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, `{"metadata":{"name":"p","uid":"u1"}}`) }
	c, s := newClient(t, map[string]http.HandlerFunc{
		"PATCH /apis/apps/v1/namespaces/ns/statefulsets/j-ps/scale": ok,
		"PATCH /api/v1/namespaces/ns/pods/p":                        ok,
		"POST /apis/events.k8s.io/v1/namespaces/ns/events":          ok,
	})
	ctx := context.Background()
	if err := c.ScaleStatefulSet(ctx, "ns", "j-ps", 0); err != nil {
		t.Fatal(err)
	}
	v := "1"
	p, err := c.PatchPodMetadata(ctx, "ns", "p", map[string]*string{"l": &v}, map[string]*string{"a": nil})
	if err != nil || p.UID != "u1" {
		t.Fatalf("PatchPodMetadata = %+v, %v", p, err)
	}
	if err := c.CreateEvent(ctx, &kube.Event{ObjectMeta: kube.ObjectMeta{Name: "e", Namespace: "ns"}, Reason: "JobSucceeded", EventTime: "2026-01-02T03:04:05.000000Z"}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`PATCH /apis/apps/v1/namespaces/ns/statefulsets/j-ps/scale application/merge-patch+json {"spec":{"replicas":0}}`,
		`PATCH /api/v1/namespaces/ns/pods/p application/strategic-merge-patch+json {"metadata":{"annotations":{"a":null},"labels":{"l":"1"}}}`,
	}
	for i, w := range want {
		if s.requests[i] != w {
			t.Errorf("request %d:\n got %s\nwant %s", i, s.requests[i], w)
		}
	}
	if !strings.HasPrefix(s.requests[2], "POST /apis/events.k8s.io/v1/namespaces/ns/events application/json {") ||
		!strings.Contains(s.requests[2], `"apiVersion":"events.k8s.io/v1","kind":"Event"`) {
		t.Errorf("event: %s", s.requests[2])
	}
	if err := c.ScaleStatefulSet(ctx, "ns", "j-missing", 0); !kube.IsNotFound(err) || !kube.IsPermanent(err) {
		t.Errorf("scale of a missing StatefulSet: %v", err)
	}
}

// TestWatchPod: the watch is one request from resourceVersion 0: the
// API server's ADDED event is the pod as it is, then come its changes;
// after an expired watch (410) it watches from 0 again and goes on.
func TestWatchPod(t *testing.T) {
	var mu sync.Mutex
	var froms []string
	pod := func(rv string, restarts int) string {
		return fmt.Sprintf(`{"metadata":{"name":"p","resourceVersion":%q},"status":{"containerStatuses":[{"name":"tf","restartCount":%d}]}}`, rv, restarts)
	}
	c, _ := newClient(t, map[string]http.HandlerFunc{
		"GET /api/v1/namespaces/ns/pods": func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			if q.Get("watch") != "true" || q.Get("fieldSelector") != "metadata.name=p" {
				status(w, http.StatusBadRequest, "BadRequest")
				return
			}
			mu.Lock()
			froms = append(froms, q.Get("resourceVersion"))
			n := len(froms)
			mu.Unlock()
			enc := json.NewEncoder(w)
			enc.Encode(map[string]any{"type": "ADDED", "object": json.RawMessage(pod("10", 0))})
			if n == 1 {
				enc.Encode(map[string]any{"type": "MODIFIED", "object": json.RawMessage(pod("11", 1))})
				enc.Encode(map[string]any{"type": "ERROR", "object": map[string]any{"kind": "Status", "code": 410, "message": "too old"}})
				return
			}
			enc.Encode(map[string]any{"type": "MODIFIED", "object": json.RawMessage(pod("12", 2))})
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pods := c.WatchPod(ctx, "ns", "p", func(string, ...any) {})
	var got []string
	for p := range pods {
		got = append(got, fmt.Sprintf("%s/%d", p.ResourceVersion, p.Status.ContainerStatuses[0].RestartCount))
		if len(got) == 4 {
			cancel()
		}
	}
	if want := "10/0 11/1 10/0 12/2"; strings.Join(got, " ") != want {
		t.Errorf("pods %v, want %s", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"0", "0"}; !slices.Equal(froms[:2], want) {
		t.Errorf("watches from %v, want %v: from 0, and again from 0 after the expired watch", froms, want)
	}
}

// TestUnauthorizedIsRetried: a 401 or 403 may pass (an API server under
// load fails to authenticate valid tokens; a RoleBinding may come late), so
// it is retried, while a 404 or 422 is not.
func TestUnauthorizedIsRetried(t *testing.T) {
	for code, permanent := range map[int]bool{401: false, 403: false, 429: false, 500: false, 504: false, 400: true, 404: true, 422: true} {
		if got := kube.IsPermanent(&kube.APIError{Code: code}); got != permanent {
			t.Errorf("IsPermanent(%d) = %v, want %v", code, got, permanent)
		}
	}
}
