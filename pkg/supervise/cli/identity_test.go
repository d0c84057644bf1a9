package cli

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPodIdentity: tfsupervisor finds its replica by TFGEN_POD_NAME and
// TFGEN_POD_NAMESPACE, whatever the user's POD_NAME and POD_NAMESPACE
// hold; in a pod rendered before them, by POD_NAME and POD_NAMESPACE.
func TestPodIdentity(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want identity
	}{
		{"tfgen's variables", map[string]string{"TFGEN_POD_NAME": "j-worker-3", "TFGEN_POD_NAMESPACE": "ml"},
			identity{pod: "j-worker-3", namespace: "ml"}},
		{"the user's POD_NAME beside them", map[string]string{"TFGEN_POD_NAME": "j-worker-3", "TFGEN_POD_NAMESPACE": "ml",
			"POD_NAME": "my-trainer", "POD_NAMESPACE": "elsewhere"}, identity{pod: "j-worker-3", namespace: "ml"}},
		{"a pod rendered by an earlier tfgen", map[string]string{"POD_NAME": "j-worker-3", "POD_NAMESPACE": "ml"},
			identity{pod: "j-worker-3", namespace: "ml"}},
		{"no namespace", map[string]string{"TFGEN_POD_NAME": "j-worker-3", "POD_NAMESPACE": "elsewhere"},
			identity{pod: "j-worker-3", namespace: "default"}},
		{"nothing", nil, identity{namespace: "default"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range []string{"TFGEN_POD_NAME", "TFGEN_POD_NAMESPACE", "POD_NAME", "POD_NAMESPACE"} {
				v, ok := tt.env[k]
				t.Setenv(k, v)
				if !ok {
					unsetenv(t, k)
				}
			}
			if diff := cmp.Diff(tt.want, podIdentity(), cmp.AllowUnexported(identity{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// unsetenv unsets k for the rest of the test (t.Setenv restores it).
func unsetenv(t *testing.T, k string) {
	t.Helper()
	if err := os.Unsetenv(k); err != nil {
		t.Fatal(err)
	}
}
