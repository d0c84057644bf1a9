package anchor

import (
	"strings"
	"testing"
)

func TestParseRequests(t *testing.T) {
	text := `# HELP apiserver_request_total [STABLE] Counter of apiserver requests
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="status",verb="PATCH",version="v1"} 12
apiserver_request_total{code="409",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="PATCH",version="v1"} 3
apiserver_request_total{code="504",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="status",verb="PATCH",version="v1"} 1
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 7
apiserver_request_duration_seconds_bucket{verb="GET",le="0.1"} 99
`
	r, err := parseRequests(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if got := r[requestKey{"PATCH", "pods/status", "200"}]; got != 12 {
		t.Errorf("PATCH pods/status 200: %v, want 12", got)
	}
	earlier := requests{{"PATCH", "pods/status", "200"}: 10}
	d := r.since(earlier)
	for _, c := range []struct {
		what string
		got  int
		want int
	}{
		{"all", d.count(all), 2 + 3 + 1 + 7},
		{"writes", d.count(isWrite), 2 + 3 + 1},
		{"409", d.count(code("409")), 3},
		{"5xx", d.count(is5xx), 1},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.what, c.got, c.want)
		}
	}
}
