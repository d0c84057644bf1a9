package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
)

// requests counts the reader's own calls to the API server by verb, as
// the API server names them (GET, LIST, WATCH; any other is a write, and
// the reader makes none): what it costs the API server, on its own
// /metrics.
type requests struct {
	next  http.RoundTripper
	count *prometheus.CounterVec
}

func newRequests(reg prometheus.Registerer) func(http.RoundTripper) http.RoundTripper {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tfgen_metrics_api_requests_total",
		Help: "The reader's requests to the API server by verb"}, []string{"verb"})
	reg.MustRegister(c)
	return func(next http.RoundTripper) http.RoundTripper { return &requests{next: next, count: c} }
}

// RoundTrip implements http.RoundTripper.
func (r *requests) RoundTrip(req *http.Request) (*http.Response, error) {
	r.count.WithLabelValues(verb(req)).Inc()
	return r.next.RoundTrip(req)
}

// verb is req's verb as the API server counts it: a GET is a WATCH with
// watch=true, a LIST on a collection (client-go's informers list with
// resourceVersion and limit), else a GET.
func verb(req *http.Request) string {
	if req.Method != http.MethodGet {
		return req.Method
	}
	q := req.URL.Query()
	switch {
	case q.Get("watch") == "true" || q.Get("watch") == "1":
		return "WATCH"
	case q.Has("limit") || q.Has("resourceVersion") || q.Has("labelSelector"):
		return "LIST"
	}
	return "GET"
}
