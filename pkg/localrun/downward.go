package localrun

import (
	"fmt"
	"maps"
	"strings"

	"github.com/tfgen/tfgen/pkg/job"
)

// podMeta is what a replica's pod would tell its containers through the
// downward API that a local run knows: its name, namespace, labels and
// annotations. (Its uid, node, addresses and service account belong to a
// cluster.)
type podMeta struct {
	name, namespace     string
	labels, annotations map[string]string
}

// newPodMeta returns the metadata of replica index i of type t of job j,
// pod name pod in namespace ns: the template's labels and annotations,
// with the labels tfgen renders on the pod template and those the
// StatefulSet controller adds to each pod. (The labels tfsupervisor adds
// once the pod runs come too late for the environment.)
func newPodMeta(j *job.Job, t job.ReplicaType, i int32, pod, ns string) podMeta {
	tpl := &j.Replicas()[t].Template
	labels := maps.Clone(tpl.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	name := "tfjob"
	if j.Framework() == job.MXNet {
		name = "mxjob"
	}
	maps.Copy(labels, map[string]string{
		"app.kubernetes.io/component":        t.Lower(),
		"app.kubernetes.io/instance":         j.Name,
		"app.kubernetes.io/managed-by":       "tfgen",
		"app.kubernetes.io/name":             name,
		"training.kubeflow.org/job-name":     j.Name,
		"training.kubeflow.org/replica-type": t.Lower(),
		"apps.kubernetes.io/pod-index":       fmt.Sprint(i),
		"statefulset.kubernetes.io/pod-name": pod,
	})
	annotations := maps.Clone(tpl.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	return podMeta{name: pod, namespace: ns, labels: labels, annotations: annotations}
}

// field returns the value of a downward API fieldPath as the kubelet
// gives it to an env var (one label or annotation, not all of them, which
// only a volume shows), and whether a local run knows it.
func (m podMeta) field(path string) (string, bool) {
	switch path {
	case "metadata.name":
		return m.name, true
	case "metadata.namespace":
		return m.namespace, true
	}
	for prefix, from := range map[string]map[string]string{"metadata.labels": m.labels, "metadata.annotations": m.annotations} {
		if key, ok := subscript(path, prefix); ok {
			return from[key], true
		}
	}
	return "", false
}

// subscript reads PREFIX['KEY'] (or PREFIX["KEY"]), a fieldPath of one
// label or annotation.
func subscript(path, prefix string) (string, bool) {
	rest, ok := strings.CutPrefix(path, prefix+"[")
	if !ok || len(rest) < 3 || rest[len(rest)-1] != ']' {
		return "", false
	}
	quoted := rest[:len(rest)-1]
	if q := quoted[0]; (q != '\'' && q != '"') || quoted[len(quoted)-1] != q {
		return "", false
	}
	return quoted[1 : len(quoted)-1], true
}
