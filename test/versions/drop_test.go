package versions

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/test/harness"
)

// TestKube134DropsFieldsOfA137Render is the evidence that an older API
// server drops a newer render's fields without a word, and that the
// comparison of the tests above sees it: examples/tfjob-mnist.yaml
// rendered for 1.37 (the default) is accepted by Kubernetes 1.34, which
// would store each StatefulSet without the supervisor's image volume
// tfgen-bin (ImageVolume is off in 1.34) and its mount, and every
// training container without its restartPolicy and restartPolicyRules
// (ContainerRestartRules is off): 12 fields, and no pod could start.
func TestKube134DropsFieldsOfA137Render(t *testing.T) {
	t.Parallel()
	s := apiServer(t, "1.34")
	doc, err := os.ReadFile(filepath.Join(root, "examples", "tfjob-mnist.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	objs, stderr, ok, err := harness.Render(doc, "--kube-version", "1.37")
	if err != nil || !ok {
		t.Fatalf("tfgen render: %v\n%s", err, stderr)
	}
	var got []string
	for _, r := range s.send(t, objs) {
		if r.err != nil {
			t.Fatalf("Kubernetes 1.34 refused %s: %v", harness.Describe(r.obj), r.err)
		}
		for _, c := range r.changes {
			if !c.Dropped {
				t.Errorf("%s: %s, want only fields dropped", harness.Describe(r.obj), c)
			}
			got = append(got, harness.Describe(r.obj)+": "+c.Path)
		}
	}
	var want []string
	for _, sts := range []string{"mnist-chief", "mnist-ps", "mnist-worker"} {
		want = append(want,
			"StatefulSet "+sts+": spec.template.spec.containers[name=tensorflow].restartPolicy",
			"StatefulSet "+sts+": spec.template.spec.containers[name=tensorflow].restartPolicyRules",
			"StatefulSet "+sts+": spec.template.spec.containers[name=tensorflow].volumeMounts[name=tfgen-bin]",
			"StatefulSet "+sts+": spec.template.spec.volumes[name=tfgen-bin]",
		)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("what Kubernetes 1.34 drops of a 1.37 render (-want +got):\n%s", diff)
	}
}
