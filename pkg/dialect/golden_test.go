package dialect

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/input"
	"github.com/tfgen/tfgen/pkg/job"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.json from the current output")

// goldenDoc is what a golden file holds for one document.
type goldenDoc struct {
	Passthrough bool              `json:"passthrough,omitempty"`
	Source      *goldenSource     `json:"source,omitempty"`
	Job         *job.Job          `json:"job,omitempty"`
	Warnings    []string          `json:"warnings,omitempty"`
	Error       []string          `json:"error,omitempty"`
	Extra       map[string]string `json:"extra,omitempty"`
}

type goldenSource struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Replicas   string            `json:"replicas"`
	Replica    map[string]string `json:"replica"`
	RunPolicy  string            `json:"runPolicy"`
	Fields     map[string]string `json:"fields,omitempty"`
}

func sourceOf(j *job.Job) *goldenSource {
	s := &goldenSource{APIVersion: j.Source.APIVersion, Kind: j.Source.Kind, Replicas: j.ReplicasPath().String(),
		Replica: map[string]string{}, RunPolicy: j.RunPolicyPath().String()}
	for _, t := range j.ReplicaTypes() {
		s.Replica[string(t)] = j.ReplicaPath(t).String()
	}
	if len(j.Source.Paths.Fields) > 0 {
		s.Fields = map[string]string{}
		for k, p := range j.Source.Paths.Fields {
			s.Fields[k] = p.String()
		}
	}
	return s
}

// decodeFile decodes every document of a testdata file.
func decodeFile(t *testing.T, path string, opts Options) []goldenDoc {
	t.Helper()
	docs, err := input.ReadPath(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []goldenDoc
	for _, d := range docs {
		res, err := Decode(d, opts)
		g := goldenDoc{Passthrough: res.Passthrough, Job: res.Job, Warnings: res.Warnings}
		if res.Job != nil {
			g.Source = sourceOf(res.Job)
		}
		if err != nil {
			g.Error = strings.Split(err.Error(), "\n")
		}
		out = append(out, g)
	}
	return out
}

func TestGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/*.yaml")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".yaml")
		t.Run(name, func(t *testing.T) {
			got, err := json.MarshalIndent(decodeFile(t, in, Options{}), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := filepath.Join("testdata", "golden", name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(want, got) {
				t.Errorf("%s differs (-want +got):\n%s", golden, cmp.Diff(string(want), string(got)))
			}
		})
	}
}
