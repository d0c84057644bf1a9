package dialect

import (
	"os"
	"testing"

	"github.com/tfgen/tfgen/pkg/input"
	"github.com/tfgen/tfgen/pkg/validate"
)

// BenchmarkDecode measures reading, decoding, defaulting and validating one
// Kubeflow v1 job, the part of a render that happens before templates.
func BenchmarkDecode(b *testing.B) {
	data, err := os.ReadFile("testdata/kubeflow-v1-tfjob.yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		docs, err := input.Split("job.yaml", data)
		if err != nil {
			b.Fatal(err)
		}
		res, err := Decode(docs[0], Options{})
		if err != nil {
			b.Fatal(err)
		}
		if errs := validate.Job(res.Job); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}
