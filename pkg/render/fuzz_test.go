package render

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tfgen/tfgen/internal/jobgen"
	"github.com/tfgen/tfgen/pkg/check"
	"github.com/tfgen/tfgen/pkg/dialect"
	"github.com/tfgen/tfgen/pkg/input"
	"github.com/tfgen/tfgen/pkg/manifest"
	"github.com/tfgen/tfgen/pkg/output"
	"github.com/tfgen/tfgen/pkg/validate"
	"github.com/tfgen/tfgen/templates"
)

// FuzzRender runs arbitrary documents through decoding, validation,
// rendering, checking and writing, seeded with the examples, the error
// cases and generated jobs (internal/jobgen). Errors are expected; a panic, or output that cannot be read back,
// is a bug.
func FuzzRender(f *testing.F) {
	for _, pattern := range []string{"../../examples/*.yaml", "../../testdata/errors/*.yaml"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	// And jobs of test/e2e's dry-run generator: pod templates with many
	// fields set, valid and not.
	gen := jobgen.New(1)
	for range 50 {
		f.Add(gen.Next().YAML)
	}
	r, err := New(templates.FS)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, _ := input.Split("fuzz.yaml", data)
		for _, doc := range docs {
			res, err := dialect.Decode(doc, dialect.Options{})
			if err != nil || res.Job == nil || len(validate.Job(res.Job)) > 0 {
				continue
			}
			for _, kube := range []string{"1.34", "1.37"} {
				objs, err := r.Render(res.Job, settings(), Capabilities{KubeVersion: kube})
				if err != nil || check.Objects(objs) != nil {
					continue
				}
				items := make([]output.Item, len(objs))
				for i, o := range objs {
					items[i] = output.Item{Object: o}
				}
				stream, err := output.Stream(items)
				if err != nil {
					t.Fatalf("write: %v", err)
				}
				for _, d := range manifest.SplitDocuments(stream) {
					if _, err := manifest.Parse(d); err != nil {
						t.Fatalf("cannot read back what was written: %v\n%s", err, d)
					}
				}
			}
		}
	})
}
