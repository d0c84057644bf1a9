package metrics

import (
	"net/http"
	"testing"
)

// TestVerb: the reader's requests as the API server counts them.
func TestVerb(t *testing.T) {
	for url, want := range map[string]string{
		"/api/v1/namespaces/a/configmaps?labelSelector=x&limit=500&resourceVersion=0":                     "LIST",
		"/api/v1/namespaces/a/pods?allowWatchBookmarks=true&labelSelector=x&resourceVersion=5&watch=true": "WATCH",
		"/api/v1/namespaces/a/pods/p": "GET",
	} {
		req, err := http.NewRequest(http.MethodGet, "https://api"+url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := verb(req); got != want {
			t.Errorf("GET %s: %s, want %s", url, got, want)
		}
	}
	req, _ := http.NewRequest(http.MethodPatch, "https://api/api/v1/namespaces/a/pods/p", nil)
	if got := verb(req); got != http.MethodPatch {
		t.Errorf("PATCH: %s", got)
	}
}
