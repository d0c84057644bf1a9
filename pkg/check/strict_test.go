package check

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/tfgen/tfgen/pkg/manifest"
)

// convert is the reference: strict decoding by apimachinery's converter.
func convert(o manifest.Object, t reflect.Type) error {
	return runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(o, reflect.New(t).Interface(), true)
}

// goldenObjects returns every rendered object of the golden files.
func goldenObjects(t testing.TB) [][]byte {
	files, err := filepath.Glob("../../testdata/*.golden.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	var docs [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, manifest.SplitDocuments(b)...)
	}
	return docs
}

// agree reports a disagreement between strict and the converter on doc.
func agree(t *testing.T, doc []byte) {
	o, err := manifest.Parse(doc)
	if err != nil {
		return
	}
	typ, ok := types[o.GroupVersionKind()]
	if !ok {
		return
	}
	ref := convert(o, typ)
	errs := strict(map[string]any(o), typ)
	switch {
	case ref != nil && len(errs) == 0:
		t.Fatalf("the converter refuses (%v), strict accepts:\n%s", ref, doc)
	case ref == nil && len(errs) > 0 && !onlyOverflow(errs):
		t.Fatalf("the converter accepts, strict refuses: %v\n%s", errs, doc)
	}
}

// onlyOverflow: the converter truncates integers that do not fit their
// field silently; strict refuses them, as the API server would.
func onlyOverflow(errs []string) bool {
	for _, e := range errs {
		if !strings.Contains(e, "does not fit in") {
			return false
		}
	}
	return true
}

func TestStrictAgreesOnGoldens(t *testing.T) {
	n := 0
	for _, doc := range goldenObjects(t) {
		o, err := manifest.Parse(doc)
		if err != nil {
			t.Fatal(err)
		}
		typ, ok := types[o.GroupVersionKind()]
		if !ok {
			continue
		}
		n++
		if errs := strict(map[string]any(o), typ); len(errs) > 0 {
			t.Errorf("%s: %v", o, errs)
		}
		if err := convert(o, typ); err != nil {
			t.Errorf("%s: converter: %v", o, err)
		}
	}
	if n < 100 {
		t.Errorf("only %d objects checked", n)
	}
}

func TestStrictFindsEveryProblem(t *testing.T) {
	doc := "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: j\nspec:\n  replicas: \"3\"\n  serviceNme: x\n" +
		"  template: {\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"cpu\":\"lots\"}},\"ports\":[{\"containerPort\":99999999999}]}]}}\n"
	o, err := manifest.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(strict(map[string]any(o), types[o.GroupVersionKind()]), "\n")
	for _, want := range []string{`unknown field "spec.serviceNme"`, "spec.replicas: want an integer, got a string",
		"spec.template.spec.containers[0].resources.limits[cpu]: quantities must match", "containerPort: 99999999999 does not fit in int32"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

// FuzzStrict mutates rendered objects and checks that strict and the
// converter accept and refuse the same ones.
func FuzzStrict(f *testing.F) {
	for _, doc := range goldenObjects(f) {
		f.Add(doc)
	}
	f.Fuzz(agree)
}
