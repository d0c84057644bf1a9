package operate_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/operate"
	"github.com/tfgen/tfgen/pkg/record"
)

// Pod logs come from the kubelet through the API server, and the test
// control plane has no kubelet: this test stands in for the API server at
// the transport, to check which pods and containers are asked for, with
// which options, and how the lines come out.

// fakeAPI answers the pod list of job j and each pod's log.
type fakeAPI struct {
	pods []corev1.Pod
	logs map[string]string // pod/container → log
	kept map[string]string // the logs ConfigMap's data; nil: none

	mu       sync.Mutex
	requests []string // path?query of each log request
}

func (f *fakeAPI) RoundTrip(r *http.Request) (*http.Response, error) {
	respond := func(code int, body string) (*http.Response, error) {
		return &http.Response{StatusCode: code, Header: http.Header{"Content-Type": []string{"application/json"}},
			Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	}
	switch p := r.URL.Path; {
	case p == "/api/v1/namespaces/ns/pods":
		if got := r.URL.Query().Get("labelSelector"); got != "training.kubeflow.org/job-name=j" {
			return respond(400, `{"kind":"Status","status":"Failure","message":"selector `+got+`","code":400}`)
		}
		b, _ := json.Marshal(corev1.PodList{Items: f.pods})
		return respond(200, string(b))
	case strings.HasSuffix(p, "/log"):
		f.mu.Lock()
		f.requests = append(f.requests, p+"?"+r.URL.RawQuery)
		f.mu.Unlock()
		pod := strings.TrimSuffix(strings.TrimPrefix(p, "/api/v1/namespaces/ns/pods/"), "/log")
		log, ok := f.logs[pod+"/"+r.URL.Query().Get("container")]
		if !ok {
			return respond(400, `{"kind":"Status","status":"Failure","message":"container not found","code":400}`)
		}
		return respond(200, log)
	case p == "/api/v1/namespaces/ns/configmaps/j-tfjob-logs" && f.kept != nil:
		b, _ := json.Marshal(corev1.ConfigMap{Data: f.kept})
		return respond(200, string(b))
	}
	return respond(404, `{"kind":"Status","status":"Failure","reason":"NotFound","code":404}`)
}

func pod(name, typ string, containers ...string) corev1.Pod {
	p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns",
		Labels: map[string]string{operate.LabelJobName: "j", operate.LabelReplicaType: typ}}}
	for _, c := range containers {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: c})
	}
	return p
}

func fakeJob(t *testing.T, api *fakeAPI) (*operate.Client, *operate.Job) {
	t.Helper()
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: "http://api.invalid", Transport: api})
	if err != nil {
		t.Fatal(err)
	}
	spec := func(containers ...string) *job.ReplicaSpec {
		s := &job.ReplicaSpec{}
		for _, c := range containers {
			s.Template.Spec.Containers = append(s.Template.Spec.Containers, corev1.Container{Name: c})
		}
		return s
	}
	j := &operate.Job{Namespace: "ns", Name: "j", Status: &record.Status{}, Spec: &job.Job{Name: "j",
		TFReplicaSpecs: map[job.ReplicaType]*job.ReplicaSpec{"Chief": spec("main", "helper"), "Worker": spec("helper", "tensorflow")}}}
	return &operate.Client{Kube: cs}, j
}

func TestLogs(t *testing.T) {
	api := &fakeAPI{
		pods: []corev1.Pod{
			pod("j-worker-1", "worker", "helper", "tensorflow", "tfsupervisor"),
			pod("j-chief-0", "chief", "main", "helper"),
			pod("j-worker-0", "worker", "helper", "tensorflow", "tfsupervisor"),
			pod("j-evaluator-0", "evaluator", "tfsupervisor", "eval"), // no spec: first that is not the supervisor
		},
		logs: map[string]string{
			"j-chief-0/main":        "chief line 1\nchief line 2\n",
			"j-worker-0/tensorflow": "w0 a\nw0 b", // no final newline
			"j-worker-1/tensorflow": "w1 a\n",
			"j-evaluator-0/eval":    "eval\n",
		},
	}
	c, j := fakeJob(t, api)
	ctx := context.Background()
	tail := int64(5)
	cases := []struct {
		name     string
		replica  string
		all      bool
		opts     operate.LogOptions
		want     string
		requests []string
	}{
		{name: "default is the chief", want: "chief line 1\nchief line 2\n",
			requests: []string{"/api/v1/namespaces/ns/pods/j-chief-0/log?container=main"}},
		{name: "one replica, followed, tail", replica: "Worker-1", opts: operate.LogOptions{Follow: true, Tail: &tail}, want: "w1 a\n",
			requests: []string{"/api/v1/namespaces/ns/pods/j-worker-1/log?container=tensorflow&follow=true&tailLines=5"}},
		{name: "all, prefixed, in replica order", all: true, opts: operate.LogOptions{Prefix: true},
			want: "[chief-0] chief line 1\n[chief-0] chief line 2\n[evaluator-0] eval\n[worker-0] w0 a\n[worker-0] w0 b\n[worker-1] w1 a\n",
			requests: []string{"/api/v1/namespaces/ns/pods/j-chief-0/log?container=main", "/api/v1/namespaces/ns/pods/j-evaluator-0/log?container=eval",
				"/api/v1/namespaces/ns/pods/j-worker-0/log?container=tensorflow", "/api/v1/namespaces/ns/pods/j-worker-1/log?container=tensorflow"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			api.requests = nil
			src, err := c.LogSources(ctx, j, tc.replica, tc.all)
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			if err := c.Logs(ctx, "ns", src, tc.opts, &out); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, out.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			for i := range api.requests {
				api.requests[i] = unescape(api.requests[i])
			}
			if diff := cmp.Diff(tc.requests, api.requests); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLogsFollowAll: followed logs of several replicas come at once, each
// line whole and prefixed.
func TestLogsFollowAll(t *testing.T) {
	long := strings.Repeat("x", 70000)
	api := &fakeAPI{
		pods: []corev1.Pod{pod("j-worker-0", "worker", "tensorflow"), pod("j-worker-1", "worker", "tensorflow")},
		logs: map[string]string{"j-worker-0/tensorflow": "a\n" + long + "\nb\n", "j-worker-1/tensorflow": "c\nd\n"},
	}
	c, j := fakeJob(t, api)
	src, err := c.LogSources(context.Background(), j, "", true)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := c.Logs(context.Background(), "ns", src, operate.LogOptions{Follow: true, Prefix: true}, &out); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	slices.Sort(got)
	want := []string{"[worker-0] a", "[worker-0] b", "[worker-0] " + long, "[worker-1] c", "[worker-1] d"}
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

// TestLogsErrors: a replica without a pod, and a container the kubelet
// does not know, say which replica.
func TestLogsErrors(t *testing.T) {
	api := &fakeAPI{pods: []corev1.Pod{pod("j-worker-0", "worker", "tensorflow")}, logs: map[string]string{}}
	c, j := fakeJob(t, api)
	if _, err := c.LogSources(context.Background(), j, "worker-3", false); err == nil ||
		err.Error() != "replica worker-3 of job j has no pod, and none of its output was kept (the output of 256 replicas at most is kept, failed ones first; in sidecar mode only that of failed containers)" {
		t.Errorf("missing pod: got %v", err)
	}
	src, err := c.LogSources(context.Background(), j, "worker-0", false)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Logs(context.Background(), "ns", src, operate.LogOptions{}, io.Discard)
	if err == nil || !strings.HasPrefix(err.Error(), "logs of replica worker-0 (pod j-worker-0, container tensorflow): ") {
		t.Errorf("failed request: got %v", err)
	}
}

func unescape(s string) string {
	u, err := url.QueryUnescape(s)
	if err != nil {
		return s
	}
	return u
}

// TestKeptLogs: replicas whose pods are gone are read from the output the
// job's keeper kept; --all takes them in replica order with the pods.
func TestKeptLogs(t *testing.T) {
	api := &fakeAPI{
		pods: []corev1.Pod{pod("j-chief-0", "chief", "main")},
		logs: map[string]string{"j-chief-0/main": "chief\n"},
		kept: map[string]string{"worker-1": "w1 a\nw1 b\nTraceback: boom\n", "chief-0": "an earlier failure\n"},
	}
	c, j := fakeJob(t, api)
	ctx := context.Background()
	tail := int64(2)
	var out, notes strings.Builder
	src, err := c.LogSources(ctx, j, "worker-1", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Logs(ctx, "ns", src, operate.LogOptions{Tail: &tail, Notes: &notes}, &out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("w1 b\nTraceback: boom\n", out.String()); diff != "" {
		t.Errorf("kept output (-want +got):\n%s", diff)
	}
	if !strings.Contains(notes.String(), "replica worker-1 has no pod") {
		t.Errorf("notes: %q", notes.String())
	}
	out.Reset()
	if src, err = c.LogSources(ctx, j, "", true); err != nil {
		t.Fatal(err)
	}
	if err := c.Logs(ctx, "ns", src, operate.LogOptions{Prefix: true}, &out); err != nil {
		t.Fatal(err)
	}
	want := "[chief-0] chief\n[worker-1] w1 a\n[worker-1] w1 b\n[worker-1] Traceback: boom\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("all (-want +got):\n%s", diff)
	}
}
