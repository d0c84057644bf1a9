package jobgen

import "strings"

// labels are a job's or a pod template's labels.
func (g *Generator) labels() map[string]any {
	m := map[string]any{}
	for range 1 + g.r.IntN(3) {
		k := one(g, 0.8, "team", "app.kubernetes.io/part-of", "example.com/owner", "Team_A", "a/b/c", "bad key", strings.Repeat("k", 64))
		m[k] = one(g, 0.8, "vision", "", "v1.2_3", "bad value!", strings.Repeat("v", 64), "-lead")
	}
	return m
}

// annotations are a job's or a pod template's annotations.
func (g *Generator) annotations() map[string]any {
	m := map[string]any{}
	for range 1 + g.r.IntN(3) {
		k := one(g, 0.8, "description", "example.com/note", "prometheus.io/scrape", "bad key", "a/b/c")
		m[k] = one(g, 0.8, "a note", "", "line one\nline two", `{"json": true}`)
	}
	return m
}
