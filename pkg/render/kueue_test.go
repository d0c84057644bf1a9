package render

import (
	"testing"

	"github.com/tfgen/tfgen/pkg/job"
)

// TestKueueGroupIsTheJob: under Kueue every pod names the job as its pod
// group, by label (Kueue up to v0.17) and by annotation (read first from
// v0.18), whatever the user's template says: a template's own group name
// would split the job into groups admitted apart.
func TestKueueGroupIsTheJob(t *testing.T) {
	j := mnist()
	j.Labels = map[string]string{"kueue.x-k8s.io/queue-name": "q"}
	tpl := &j.TFReplicaSpecs[job.Worker].Template
	tpl.Labels = map[string]string{"kueue.x-k8s.io/pod-group-name": "other"}
	tpl.Annotations = map[string]string{"kueue.x-k8s.io/pod-group-name": "other"}
	objs, err := newRenderer(t).Render(j, settings(), newest)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"mnist-chief", "mnist-ps", "mnist-worker"} {
		meta := statefulSet(t, objs, name)["spec"].(map[string]any)["template"].(map[string]any)["metadata"].(map[string]any)
		label := meta["labels"].(map[string]any)["kueue.x-k8s.io/pod-group-name"]
		annotation := meta["annotations"].(map[string]any)["kueue.x-k8s.io/pod-group-name"]
		if label != "mnist" || annotation != "mnist" {
			t.Errorf("%s: pod group label %v, annotation %v; want both mnist", name, label, annotation)
		}
	}
}
