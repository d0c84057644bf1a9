package dialect

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfgen/tfgen/pkg/input"
	"github.com/tfgen/tfgen/pkg/validate"
)

// FuzzDecode splits arbitrary input into documents, decodes each in both
// modes, validates and serialises the jobs: nothing may panic, and no
// dialect may fail internally.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"", "---\n", "- a\n", "kind: TFJob\napiVersion: kubeflow.org/v1\nspec: []\n",
		"kind: TFJob\napiVersion: kubeflow.org/v1\nspec: {tfReplicaSpecs: {Worker: null, PS: {replicas: -5}}}\n",
		"kind: TfJob\napiVersion: tensorflow.org/v1alpha1\nspec: {replicaSpecs: [null, {tfReplicaType: PS}]}\n",
		`{"kind":"TensorFlowTrainingJob","apiVersion":"batch.tensorstack.dev/v1beta1","spec":{"runMode":{"debug":{"enabled":true}}}}`,
		`{"kind":"TFJob","apiVersion":"kubeflow.caicloud.io/v1alpha1","spec":{"type":"","tfReplicaSpec":[{"tfReplicaType":"Local","replicas":0},{"tfReplicaType":"PS","template":{}}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, _ := input.Split("fuzz.yaml", data)
		for _, d := range docs {
			for _, strict := range []bool{false, true} {
				res, err := Decode(d, Options{Strict: strict})
				if err != nil && strings.Contains(err.Error(), "please report this") {
					t.Fatalf("internal error: %v", err)
				}
				if res.Job == nil {
					continue
				}
				_ = validate.Job(res.Job)
				if _, err := json.Marshal(res.Job); err != nil {
					t.Fatalf("marshal job: %v", err)
				}
			}
		}
	})
}
