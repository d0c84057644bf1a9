package render

import (
	"testing"

	"github.com/tfgen/tfgen/pkg/manifest"
)

func TestRenderPrint(t *testing.T) {
	r := newRenderer(t)
	objs, err := r.Render(mnist(), settings())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		b, err := manifest.MarshalYAML(o)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("---\n%s", b)
	}
}
