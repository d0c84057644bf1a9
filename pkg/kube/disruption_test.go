package kube

import (
	"encoding/json"
	"testing"
)

// TestDisruption reads why a pod goes away from the pod as the API server
// sends it.
func TestDisruption(t *testing.T) {
	for _, tc := range []struct{ pod, want string }{
		{`{"metadata":{"name":"p"},"status":{"phase":"Running"}}`, ""},
		{`{"metadata":{"name":"p","deletionTimestamp":"2026-11-24T00:00:00Z"},"status":{}}`, "deleted"},
		{`{"metadata":{"name":"p","deletionTimestamp":"2026-11-24T00:00:00Z"},"status":{"conditions":[{"type":"Ready","status":"False"},{"type":"DisruptionTarget","status":"True","reason":"PreemptionByScheduler"}]}}`,
			"DisruptionTarget: PreemptionByScheduler"},
		{`{"metadata":{"name":"p"},"status":{"phase":"Failed","reason":"Evicted"}}`, "Evicted"},
		{`{"metadata":{"name":"p"},"status":{"conditions":[{"type":"DisruptionTarget","status":"False"}]}}`, ""},
	} {
		var p Pod
		if err := json.Unmarshal([]byte(tc.pod), &p); err != nil {
			t.Fatal(err)
		}
		if got := p.Disruption(); got != tc.want {
			t.Errorf("%s: Disruption() = %q, want %q", tc.pod, got, tc.want)
		}
	}
}
