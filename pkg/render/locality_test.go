package render

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/manifest"
)

// near is a preferred pod affinity term toward the pods of job (of
// replica type typ, unless "") in the same topology domain.
func near(weight int32, key, jobName, typ string) corev1.WeightedPodAffinityTerm {
	sel := map[string]string{"training.kubeflow.org/job-name": jobName}
	if typ != "" {
		sel["training.kubeflow.org/replica-type"] = typ
	}
	return corev1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: corev1.PodAffinityTerm{
		LabelSelector: &metav1.LabelSelector{MatchLabels: sel}, TopologyKey: key}}
}

// preferred is an affinity of preferred pod affinity terms only.
func preferred(terms ...corev1.WeightedPodAffinityTerm) *corev1.Affinity {
	return &corev1.Affinity{PodAffinity: &corev1.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: terms}}
}

// affinities returns each StatefulSet's pod affinity (nil when it has
// none), by StatefulSet name.
func affinities(t *testing.T, objs []manifest.Object) map[string]*corev1.Affinity {
	t.Helper()
	out := map[string]*corev1.Affinity{}
	for _, o := range objs {
		if o.Kind() != "StatefulSet" {
			continue
		}
		b, err := json.Marshal(podSpec(o))
		if err != nil {
			t.Fatal(err)
		}
		var spec corev1.PodSpec
		if err := json.Unmarshal(b, &spec); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(o.Name(), "-keeper") {
			if spec.Affinity != nil {
				t.Errorf("the keeper's pod has affinity %+v: it is drawn to no replica", spec.Affinity)
			}
			continue
		}
		out[o.Name()] = spec.Affinity
	}
	return out
}

// usersAffinity is an affinity a pod template may hold: every part of it
// stays, and tfgen's preferred terms follow the user's.
func usersAffinity() *corev1.Affinity {
	return &corev1.Affinity{
		NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "gpu", Operator: corev1.NodeSelectorOpExists}}}}}},
		PodAffinity: &corev1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "data"}}, TopologyKey: "topology.kubernetes.io/zone"}},
			PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 50, PodAffinityTerm: corev1.PodAffinityTerm{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "cache"}}, TopologyKey: "kubernetes.io/hostname"}}},
		},
		PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 10,
			PodAffinityTerm: corev1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "noisy"}}, TopologyKey: "kubernetes.io/hostname"}}}},
	}
}

// TestLocality: which replicas get which preferred pod affinity, for
// each locality and its default, and that a template's own affinity is
// kept whole with tfgen's terms after its own.
func TestLocality(t *testing.T) {
	const host, zone = "kubernetes.io/hostname", "topology.kubernetes.io/zone"
	dragon := func() *job.Job { j := mnist(); j.MinInstances, j.MaxInstances = ptr(int32(1)), ptr(int32(4)); return j }
	annotated := func(j *job.Job, v string) *job.Job {
		j.Annotations = map[string]string{job.AnnotationLocality: v}
		return j
	}
	// Near the parameter servers, then near the job.
	toPS := func(key, name, ps string) *corev1.Affinity {
		return preferred(near(100, key, name, ps), near(1, key, name, ""))
	}
	toJob := func(key, name string) *corev1.Affinity { return preferred(near(1, key, name, "")) }
	withUsers := func(j *job.Job) *job.Job {
		j.TFReplicaSpecs[job.Worker].Template.Spec.Affinity = usersAffinity()
		return j
	}
	usersAndOurs := usersAffinity()
	usersAndOurs.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(usersAndOurs.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
		near(100, host, "mnist", "ps"), near(1, host, "mnist", ""))

	for _, tc := range []struct {
		name string
		job  *job.Job
		want map[string]*corev1.Affinity
	}{
		{"not DRAGON: none by default", mnist(), map[string]*corev1.Affinity{"mnist-chief": nil, "mnist-ps": nil, "mnist-worker": nil}},
		{"DRAGON: node by default", dragon(), map[string]*corev1.Affinity{
			"mnist-chief": toPS(host, "mnist", "ps"), "mnist-ps": toJob(host, "mnist"), "mnist-worker": toPS(host, "mnist", "ps")}},
		{"only minInstances is DRAGON too", func() *job.Job { j := mnist(); j.MinInstances = ptr(int32(2)); return j }(), map[string]*corev1.Affinity{
			"mnist-chief": toPS(host, "mnist", "ps"), "mnist-ps": toJob(host, "mnist"), "mnist-worker": toPS(host, "mnist", "ps")}},
		{"DRAGON with none", annotated(dragon(), "none"), map[string]*corev1.Affinity{"mnist-chief": nil, "mnist-ps": nil, "mnist-worker": nil}},
		{"zone", annotated(mnist(), "zone"), map[string]*corev1.Affinity{
			"mnist-chief": toPS(zone, "mnist", "ps"), "mnist-ps": toJob(zone, "mnist"), "mnist-worker": toPS(zone, "mnist", "ps")}},
		{"an evaluator is near the job only", func() *job.Job {
			return testjob.From(annotated(mnist(), "node")).Replica(job.Evaluator, 1, never, train("python")).Job()
		}(), map[string]*corev1.Affinity{
			"mnist-chief": toPS(host, "mnist", "ps"), "mnist-evaluator": toJob(host, "mnist"), "mnist-ps": toJob(host, "mnist"), "mnist-worker": toPS(host, "mnist", "ps")}},
		{"no parameter server: near the job only", func() *job.Job {
			j := annotated(mnist(), "node")
			delete(j.TFReplicaSpecs, job.PS)
			return j
		}(), map[string]*corev1.Affinity{"mnist-chief": toJob(host, "mnist"), "mnist-worker": toJob(host, "mnist")}},
		{"mxnet: workers near the servers", annotated(mxnet(), "node"), map[string]*corev1.Affinity{
			"mx-scheduler": toJob(host, "mx"), "mx-server": toJob(host, "mx"), "mx-worker": toPS(host, "mx", "server")}},
		{"the template's affinity kept, tfgen's terms after its own", withUsers(dragon()), map[string]*corev1.Affinity{
			"mnist-chief": toPS(host, "mnist", "ps"), "mnist-ps": toJob(host, "mnist"), "mnist-worker": usersAndOurs}},
		{"the template's affinity alone under none", withUsers(mnist()), map[string]*corev1.Affinity{
			"mnist-chief": nil, "mnist-ps": nil, "mnist-worker": usersAffinity()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := newRenderer(t).Render(tc.job, settings(), newest)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, affinities(t, objs)); d != "" {
				t.Errorf("affinity by StatefulSet (-want +got):\n%s", d)
			}
			// The record holds the job as written: tfgen's terms are
			// rendered, never merged into the values.
			for _, o := range objs {
				if o.Kind() == "ConfigMap" && o.Name() == tc.job.Name {
					if spec := o["data"].(map[string]any)["spec.json"].(string); strings.Contains(spec, `"weight":100`) || strings.Contains(spec, `"weight":1}`) {
						t.Errorf("the record's spec.json holds tfgen's affinity: %s", spec)
					}
				}
			}
		})
	}
}

// TestLocalityRefused: a value other than node, zone or none fails the
// render (Helm's values; tfgen refuses it before rendering).
func TestLocalityRefused(t *testing.T) {
	j := mnist()
	j.Annotations = map[string]string{job.AnnotationLocality: "rack"}
	_, err := newRenderer(t).Render(j, settings(), newest)
	if err == nil || !strings.Contains(err.Error(), `annotation tfgen.io/locality: "rack": want node, zone or none`) {
		t.Errorf("render with locality rack: %v", err)
	}
}
