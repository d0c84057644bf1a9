package schema

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

type replica struct {
	Replicas *int32                 `json:"replicas,omitempty"`
	Template corev1.PodTemplateSpec `json:"template"`
	Extra    json.RawMessage        `json:"extra,omitempty"`
	Anything any                    `json:"anything,omitempty"`
}

type object struct {
	metav1.TypeMeta `json:",inline"`
	Meta            metav1.ObjectMeta   `json:"metadata"`
	Specs           map[string]*replica `json:"tfReplicaSpecs"`
	List            []replica           `json:"replicaSpecs"`
	Port            uint16              `json:"port"`
	Enabled         bool                `json:"enabled"`
}

func decode(t *testing.T, s string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestCheck(t *testing.T) {
	doc := decode(t, `{
	  "apiVersion": "x/v1", "kind": "K", "metadata": {"name": "n", "labels": {"a": "b"}, "creationTimestamp": null, "nmae": "x"},
	  "tfReplicaSpecs": {"Worker": {"replica": 2, "extra": {"anything": [1]}, "anything": 3,
	    "template": {"spec": {"conatiners": [], "containers": [{"name": "tensorflow", "imagePullPolicyy": "Always",
	      "ports": [{"containerPort": "x"}], "resources": {"limits": {"cpu": "lots"}}}]}}}},
	  "replicaSpecs": [{"replicas": 2.5}, {"replicas": 4294967296, "template": []}],
	  "port": -1, "enabled": "yes", "replica_specs": []
	}`)
	r := Check(reflect.TypeFor[object](), doc, nil, nil)
	var unknown []string
	for _, u := range r.Unknown {
		unknown = append(unknown, u.String())
	}
	wantUnknown := []string{
		`unknown field "metadata.nmae" (did you mean "name"?)`,
		`unknown field "replica_specs" (did you mean "replicaSpecs"?)`,
		`unknown field "tfReplicaSpecs[Worker].replica" (did you mean "replicas"?)`,
		`unknown field "tfReplicaSpecs[Worker].template.spec.conatiners" (did you mean "containers"?)`,
		`unknown field "tfReplicaSpecs[Worker].template.spec.containers[0].imagePullPolicyy" (did you mean "imagePullPolicy"?)`,
	}
	if diff := cmp.Diff(wantUnknown, unknown); diff != "" {
		t.Errorf("unknown (-want +got):\n%s", diff)
	}
	var errs []string
	for _, e := range r.Errs {
		errs = append(errs, e.Error())
	}
	wantErrs := []string{
		`enabled: Invalid value: "yes": must be a boolean (true or false)`,
		`port: Invalid value: -1: must be an integer between 0 and 65535`,
		`replicaSpecs[0].replicas: Invalid value: 2.5: must be an integer`,
		`replicaSpecs[1].replicas: Invalid value: 4294967296: must be an integer between -2147483648 and 2147483647`,
		`replicaSpecs[1].template: Invalid value: []: must be an object`,
		`tfReplicaSpecs[Worker].template.spec.containers[0].ports[0].containerPort: Invalid value: "x": must be an integer`,
		`tfReplicaSpecs[Worker].template.spec.containers[0].resources.limits[cpu]: Invalid value: "lots": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
	}
	if diff := cmp.Diff(wantErrs, errs); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func TestCheckPrefix(t *testing.T) {
	r := Check(reflect.TypeFor[replica](), decode(t, `{"replicas": 1, "templates": {}}`), field.NewPath("spec", "replicaSpecs").Index(2), nil)
	if len(r.Unknown) != 1 || r.Unknown[0].String() != `unknown field "spec.replicaSpecs[2].templates" (did you mean "template"?)` {
		t.Errorf("got %v", r.Unknown)
	}
}

func TestSuggest(t *testing.T) {
	known := []string{"replicas", "restartPolicy", "template", "tfReplicaType", "tfPort"}
	for key, want := range map[string]string{
		"replica":         "replicas",
		"Replicas":        "replicas",
		"restart_policy":  "restartPolicy",
		"tf-port":         "tfPort",
		"tmeplate":        "template",
		"tfReplicaTpye":   "tfReplicaType",
		"command":         "",
		"x":               "",
		"restartPolicies": "restartPolicy",
		"imagePolicy":     "",
	} {
		if got := Suggest(key, known); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", key, got, want)
		}
	}
}

// TestIntegerRange: an integer is held to its type's exact range (a
// float64 cannot tell 2^63 from 2^63-1), and a field with a Limit gets its
// messages instead of the type's.
func TestIntegerRange(t *testing.T) {
	type durations struct {
		Deadline *int64 `json:"deadline"`
		Plain    int64  `json:"plain"`
		Small    uint8  `json:"small"`
	}
	limits := func(in reflect.Type, name string) (Limit, bool) {
		if in == reflect.TypeFor[durations]() && name == "deadline" {
			return Limit{TooSmall: "must be positive", TooLarge: "must be at most 9223372036"}, true
		}
		return Limit{}, false
	}
	const int64Range = "must be an integer between -9223372036854775808 and 9223372036854775807"
	tests := []struct {
		doc  string
		want []string
	}{
		{`{"plain": 9223372036854775807, "deadline": 9223372036854775807}`, nil},
		{`{"plain": -9223372036854775808, "small": 255}`, nil},
		{`{"plain": 9223372036854775808}`, []string{"plain: Invalid value: 9223372036854775808: " + int64Range}},
		{`{"plain": -9223372036854775809}`, []string{"plain: Invalid value: -9223372036854775809: " + int64Range}},
		{`{"plain": 1e30}`, []string{"plain: Invalid value: 1e30: " + int64Range}},
		{`{"deadline": 9223372036854775808}`, []string{"deadline: Invalid value: 9223372036854775808: must be at most 9223372036"}},
		{`{"deadline": 1e30}`, []string{"deadline: Invalid value: 1e30: must be at most 9223372036"}},
		{`{"deadline": -1e30}`, []string{"deadline: Invalid value: -1e30: must be positive"}},
		{`{"small": 256}`, []string{"small: Invalid value: 256: must be an integer between 0 and 255"}},
		{`{"small": -1}`, []string{"small: Invalid value: -1: must be an integer between 0 and 255"}},
	}
	for _, tt := range tests {
		t.Run(tt.doc, func(t *testing.T) {
			var got []string
			for _, e := range Check(reflect.TypeFor[durations](), decode(t, tt.doc), nil, limits).Errs {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
