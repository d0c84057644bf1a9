package cli

import (
	"testing"

	"sigs.k8s.io/yaml"
)

// TestValuesKubeVersion checks that tfgen values writes tfgen.kubeVersion
// only when --kube-version is given, the default included: values without
// it follow the cluster they are installed into.
func TestValuesKubeVersion(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string // tfgen.kubeVersion, "" for none
	}{
		{"not given", nil, ""},
		{"given", []string{"--kube-version", "1.34"}, "1.34"},
		{"given as the default", []string{"--kube-version", "1.37"}, "1.37"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _ := run(t, cmdCase{args: append([]string{"values", "-f", "examples/tfjob-mnist.yaml"}, tc.args...)})
			var v struct {
				TFGen map[string]any `json:"tfgen"`
			}
			if err := yaml.Unmarshal(out, &v); err != nil {
				t.Fatal(err)
			}
			got, ok := v.TFGen["kubeVersion"]
			if tc.want == "" && ok || tc.want != "" && got != tc.want {
				t.Errorf("tfgen.kubeVersion = %v (set: %v), want %q:\n%s", got, ok, tc.want, out)
			}
		})
	}
}
