package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// TestGangKubernetes: --gang-scheduler kubernetes renders a Workload and
// a PodGroup that the API server takes as they are (server-side dry-run,
// then a real apply), and pod templates whose spec.schedulingGroup names
// the PodGroup; the API server drops that field silently where the gate is
// off, so the test reads it back.
func TestGangKubernetes(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	ns := harness.Namespace(t, c.cp.Client(), "gang", nil)
	c.noPods(t, ns)
	manifests := renderGangKubernetes(t)
	bins.kubectl.Must(t, c.cp.Kubeconfig(), manifests, "apply", "--dry-run=server", "-n", ns, "-f", "-")
	out := bins.kubectl.Must(t, c.cp.Kubeconfig(), manifests, "apply", "-n", ns, "-f", "-").Stdout
	for _, want := range []string{"workload.scheduling.k8s.io/bert created", "podgroup.scheduling.k8s.io/bert created"} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl apply printed\n%s\nwant a line %q", out, want)
		}
	}

	cs := c.cp.Client()
	for _, name := range []string{"bert-chief", "bert-worker"} {
		sts, err := cs.AppsV1().StatefulSets(ns).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		g := sts.Spec.Template.Spec.SchedulingGroup
		if g == nil || g.PodGroupName == nil || *g.PodGroupName != "bert" {
			t.Errorf("StatefulSet %s: pod template's schedulingGroup = %+v, want podGroupName bert", name, g)
		}
	}
	pg, err := cs.SchedulingV1beta1().PodGroups(ns).Get(t.Context(), "bert", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if gang := pg.Spec.SchedulingPolicy.Gang; gang == nil || gang.MinCount != 8 {
		t.Errorf("PodGroup bert: gang policy %+v, want minCount 8 (schedulingPolicy.minAvailable)", gang)
	}
	if ref := pg.Spec.WorkloadRef; ref == nil || *ref != (schedulingv1beta1.WorkloadReference{WorkloadName: "bert", TemplateName: "replicas"}) {
		t.Errorf("PodGroup bert: workloadRef %+v, want Workload bert's template replicas", ref)
	}
	wl, err := cs.SchedulingV1beta1().Workloads(ns).Get(t.Context(), "bert", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tpl := wl.Spec.PodGroupTemplates; len(tpl) != 1 || tpl[0].SchedulingPolicy.Gang == nil || tpl[0].SchedulingPolicy.Gang.MinCount != 8 {
		t.Errorf("Workload bert: podGroupTemplates %+v, want one gang of 8", tpl)
	}
}

// TestGangKubernetesNeedsGate: where the Workload API is off (the
// default), applying the rendered objects fails and names the kind.
func TestGangKubernetesNeedsGate(t *testing.T) {
	t.Parallel()
	cp, err := controlplane.Start(t.Context(), controlplane.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cp.Stop)
	manifests := renderGangKubernetes(t)
	r := bins.kubectl.Run(cp.Kubeconfig(), manifests, "apply", "--dry-run=server", "-n", "default", "-f", "-")
	if r.Err == nil || !strings.Contains(r.Stderr, `no matches for kind "Workload" in version "scheduling.k8s.io/v1beta1"`) {
		t.Errorf("apply without the Workload API: err %v, stderr\n%s\nwant no matches for kind Workload", r.Err, r.Stderr)
	}
}

// renderGangKubernetes renders examples/tfjob-gang.yaml, less its
// namespace, with --gang-scheduler kubernetes.
func renderGangKubernetes(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "tfjob-gang.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	example := strings.Replace(string(b), "  namespace: research\n", "", 1)
	return bins.tfgen.Must(t, []byte(example), "render", "-f", "-", "--gang-scheduler", "kubernetes")
}
