package dialect

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/input"
)

// tfJob is a kubeflow.org/v1 TFJob named j whose training container has
// the fields container (one line of YAML each, indented by 12).
func tfJob(container ...string) string {
	return "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata:\n  name: j\nspec:\n  tfReplicaSpecs:\n    Worker:\n" +
		"      template:\n        spec:\n          containers:\n          - name: tensorflow\n            image: tf\n" +
		"            " + strings.Join(container, "\n            ") + "\n"
}

func nestedLists(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// TestDeepValuesInEveryDialect: a list nested a million deep in a field
// value ends in the one error of input's depth limit, in every dialect;
// before, decoding and printing the value overflowed the stack.
func TestDeepValuesInEveryDialect(t *testing.T) {
	for _, d := range Supported() {
		for _, levels := range []int{100_000, 1_000_000} {
			y := "apiVersion: " + d.APIVersion + "\nkind: " + d.Kind + "\nmetadata:\n  name: j\n  annotations: {a: b}\nspec:\n  x: " + nestedLists(levels) + "\n"
			_, err := Decode(doc(y), Options{})
			var le *input.LimitError
			want := "job.yaml:7: spec.x[0][0][0]"
			if !errors.As(err, &le) || !strings.HasPrefix(err.Error(), want) || len(err.Error()) > 200 {
				t.Errorf("%s %s, %d levels: got %v, want a short *input.LimitError starting %q", d.APIVersion, d.Kind, levels, err, want)
			}
		}
	}
}

// TestLongValuesQuotedInPart: a problem quotes at most the start of a
// value, however long or deep: before, a list nested 9,000 deep printed
// whole (18 kB), and a string of a megabyte too.
func TestLongValuesQuotedInPart(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	tests := []struct {
		name string
		yaml string
		want []string
	}{{
		name: "a list nested 9,000 deep for a list of strings",
		yaml: tfJob("args: " + nestedLists(9000)),
		want: []string{`job.yaml: TFJob j: spec.tfReplicaSpecs[Worker].template.spec.containers[0].args[0]: Invalid value: ` +
			strings.Repeat("[", 100) + `… (17998 bytes): must be a string`},
	}, {
		name: "a megabyte for an integer",
		yaml: tfJob(`ports: [{containerPort: "` + long + `"}]`),
		want: []string{`job.yaml: TFJob j: spec.tfReplicaSpecs[Worker].template.spec.containers[0].ports[0].containerPort: Invalid value: "` +
			strings.Repeat("x", 100) + `"… (1048576 bytes): must be an integer`},
	}, {
		name: "a megabyte for a time, quoted twice by the parser",
		yaml: strings.Replace(tfJob(), "  name: j\n", "  name: j\n  creationTimestamp: "+long+"\n", 1),
		want: []string{`job.yaml: TFJob j: metadata.creationTimestamp: Invalid value: "` + strings.Repeat("x", 100) + `"… (1048576 bytes): ` +
			`parsing time "` + strings.Repeat("x", 100) + `… (1048576 bytes)" as "2006-01-02T15:04:05Z07:00": cannot parse "` +
			strings.Repeat("x", 100) + `… (1048576 bytes)" as "2006"`},
	}, {
		name: "a long name, in every line",
		yaml: strings.Replace(tfJob("args: [1]"), "name: j", "name: "+long, 1),
		want: []string{`job.yaml: TFJob ` + strings.Repeat("x", 100) + `… (1048576 bytes): spec.tfReplicaSpecs[Worker].template.spec.containers[0].args[0]: Invalid value: 1: must be a string`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(doc(tt.yaml), Options{})
			if err == nil {
				t.Fatal("no error")
			}
			if diff := cmp.Diff(tt.want, strings.Split(err.Error(), "\n")); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLongKeyWarning: an unknown field is named in part.
func TestLongKeyWarning(t *testing.T) {
	key := strings.Repeat("k", 1<<20)
	j, err := json.Marshal(map[string]any{"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": map[string]any{"name": "j"},
		"spec": map[string]any{key: 1, "tfReplicaSpecs": map[string]any{"Worker": map[string]any{}}}})
	if err != nil {
		t.Fatal(err)
	}
	res, _ := Decode(doc(string(j)), Options{})
	want := []string{`job.yaml: TFJob j: unknown field "spec.` + strings.Repeat("k", 95) + `"… (1048581 bytes)`}
	if diff := cmp.Diff(want, res.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestShortened(t *testing.T) {
	long := strings.Repeat("v", 200)
	type restartPolicy string
	errs := field.ErrorList{
		field.Invalid(field.NewPath("a"), "short", "d"),
		field.Invalid(field.NewPath("b"), long, "d"),
		field.NotSupported(field.NewPath("c"), restartPolicy(long), []string{"Always"}),
		field.Invalid(field.NewPath("d"), []any{long}, ""),
		field.Invalid(field.NewPath("e"), json.Number(strings.Repeat("9", 200)), "must be an integer"),
		field.Required(field.NewPath("f").Key(strings.Repeat("k", 600)), ""),
		field.Invalid(field.NewPath("g"), 7, strings.Repeat("d", 600)),
	}
	var got []string
	for _, fe := range shortened(errs) {
		got = append(got, fe.Error())
	}
	v100 := strings.Repeat("v", 100)
	want := []string{
		`a: Invalid value: "short": d`,
		`b: Invalid value: "` + v100 + `"… (200 bytes): d`,
		`c: Unsupported value: "` + v100 + `"… (200 bytes): supported values: "Always"`,
		`d: Invalid value: ["` + strings.Repeat("v", 98) + `… (204 bytes)`,
		`e: Invalid value: ` + strings.Repeat("9", 100) + `… (200 bytes): must be an integer`,
		`f[` + strings.Repeat("k", 498) + `…: Required value`,
		`g: Invalid value: 7: ` + strings.Repeat("d", 500) + `…`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if errs[1].BadValue != long {
		t.Error("the errors given were changed")
	}
}
