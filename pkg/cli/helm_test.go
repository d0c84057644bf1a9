package cli

import (
	"strings"
	"testing"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/manifest"
)

// TestHelmPostRenderer renders what Helm 4 hands a post-renderer: every
// document annotated with its template. The job's objects all carry the
// job's annotation, so Helm files them under its template; the record does
// not keep it; other documents pass through as they are.
func TestHelmPostRenderer(t *testing.T) {
	in := testjob.New("demo").Annotation("postrenderer.helm.sh/postrender-filename", "trainer/templates/tfjob.yaml").Annotation("team", "vision").
		Replica(job.Worker, 1, testjob.Command("python")).String() + `---
apiVersion: v1
kind: ConfigMap
metadata:
  name: demo-config
  annotations:
    postrenderer.helm.sh/postrender-filename: trainer/templates/configmap.yaml
`
	out, _ := run(t, cmdCase{args: []string{"render", "-f", "-"}, stdin: in})
	n := 0
	for _, doc := range manifest.SplitDocuments(out) {
		o, err := manifest.Parse(doc)
		if err != nil {
			t.Fatal(err)
		}
		n++
		ann, _ := o["metadata"].(map[string]any)["annotations"].(map[string]any)
		want := "trainer/templates/tfjob.yaml"
		if o.Name() == "demo-config" {
			want = "trainer/templates/configmap.yaml"
		}
		if got := ann[helmFilename]; got != want {
			t.Errorf("%s: %s = %v, want %s", o, helmFilename, got, want)
		}
		if o.Kind() == "ConfigMap" && o.Name() == "demo" {
			if spec := o["data"].(map[string]any)["spec.json"].(string); strings.Contains(spec, "postrender") || !strings.Contains(spec, `"team":"vision"`) {
				t.Errorf("record spec.json: %s", spec)
			}
			if ann["team"] != "vision" {
				t.Errorf("record annotations: %v", ann)
			}
		}
	}
	if n != 9 {
		t.Errorf("%d objects, want the job's 7 and the two ConfigMaps:\n%s", n, out)
	}
}
