package render

import (
	"bytes"
	"testing"

	"github.com/tfgen/tfgen/pkg/manifest"
	"github.com/tfgen/tfgen/pkg/values"
)

func TestTimePerTemplate(t *testing.T) {
	r := newRenderer(t)
	vals, _ := values.Build(mnist(), settings())
	tt := r.tmpl
	data := map[string]any{"Release": map[string]any{"Name": "mnist", "Namespace": "ml"}, "Values": vals, "Template": map[string]any{}}
	var buf bytes.Buffer
	const n = 500
	for _, name := range r.names {
		start := cpuTime()
		for i := 0; i < n; i++ {
			buf.Reset()
			if err := tt.ExecuteTemplate(&buf, name, data); err != nil {
				t.Fatal(err)
			}
		}
		exec := (cpuTime() - start) / n
		start = cpuTime()
		docs := manifest.SplitDocuments(buf.Bytes())
		for i := 0; i < n; i++ {
			for _, d := range docs {
				if _, err := manifest.Parse(d); err != nil {
					t.Fatal(err)
				}
			}
		}
		t.Logf("%-20s exec %v parse %v  %d bytes", name, exec, (cpuTime()-start)/n, buf.Len())
	}
	start := cpuTime()
	for i := 0; i < n; i++ {
		values.Build(mnist(), settings())
	}
	t.Logf("values %v", (cpuTime()-start)/n)
}
