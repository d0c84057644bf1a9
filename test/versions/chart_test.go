package versions

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// chartJobs are the jobs templated with the chart: wrap mode (the
// supervisor's volume by minor), sidecar mode (1.35) and the Workload
// API's gang (1.37).
var chartJobs = []job{
	{"tfjob-mnist.yaml", nil, ""},
	{"tfjob-sidecar.yaml", nil, "1.35"},
	{"tfjob-gang.yaml", []string{"--gang-scheduler", "kubernetes"}, "1.37"},
}

// TestChartForEachMinorComesBackWhole: the chart (charts/tfjob), with the
// values `tfgen values` writes for a job, templated for each supported
// minor (helm template --kube-version), is accepted by a real API server
// of that minor, which would store every field as it was sent; a job the
// chart refuses for a minor is refused with a message naming it.
//
// In "cluster", the values leave tfgen.kubeVersion out, as a user of
// `helm install` does: the chart must target the cluster it is installed
// into (.Capabilities.KubeVersion, which helm template --kube-version
// sets). In "values", tfgen.kubeVersion says the minor (tfgen values
// --kube-version).
func TestChartForEachMinorComesBackWhole(t *testing.T) {
	t.Parallel()
	helm := helmCommand(t)
	for _, minor := range controlplane.KubeVersions {
		t.Run(minor, func(t *testing.T) {
			t.Parallel()
			s := apiServer(t, minor)
			for _, mode := range []string{"cluster", "values"} {
				for _, j := range chartJobs {
					t.Run(mode+"/"+j.String(), func(t *testing.T) {
						args := append([]string{"values", "-f", filepath.Join(root, "examples", j.example)}, j.flags...)
						if mode == "values" {
							args = append(args, "--kube-version", minor)
						}
						out, stderr, ok := harness.Tfgen(nil, args...)
						if !ok {
							t.Fatalf("tfgen %v: %s", args, stderr)
						}
						values, name, ns := chartValues(t, []byte(out), mode == "cluster")
						what := "helm template of the chart with the values of " + j.String() + " (" + mode + ")"
						r := helm.Run(values, "template", name, filepath.Join(root, "charts", "tfjob"), "-n", ns, "-f", "-", "--kube-version", minor+".0")
						if before(minor, j.since) {
							refused(t, what, minor, r.Err == nil, r.Stderr)
							return
						}
						if r.Err != nil {
							t.Fatalf("%s for Kubernetes %s: %v\n%s", what, minor, r.Err, r.Stderr)
						}
						objs, ok, err := harness.DecodeObjects([]byte(r.Stdout))
						if err != nil || !ok {
							t.Fatalf("%s: not a stream of objects (%v):\n%s", what, err, r.Stdout)
						}
						s.checkKept(t, what+" --kube-version "+minor+".0", installed(objs))
					})
				}
			}
		})
	}
}

// installed are the objects of objs `helm install` creates: all but the
// chart's test hook (a Pod `helm test` runs, in the job's account, which a
// dry-run does not make; test/helm runs it).
func installed(objs []harness.Object) []harness.Object {
	var out []harness.Object
	for _, o := range objs {
		annotations, _, _ := unstructured.NestedStringMap(o, "metadata", "annotations")
		if annotations["helm.sh/hook"] != "test" {
			out = append(out, o)
		}
	}
	return out
}

// chartValues reads the values tfgen values wrote, without
// tfgen.kubeVersion if cluster, and the release's name and namespace
// (the job's, else team-a).
func chartValues(t *testing.T, out []byte, cluster bool) (values []byte, name, ns string) {
	t.Helper()
	var v map[string]any
	if err := yaml.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	tfgen, ok := v["tfgen"].(map[string]any)
	if !ok {
		t.Fatalf("tfgen values wrote no tfgen settings:\n%s", out)
	}
	if cluster {
		delete(tfgen, "kubeVersion")
	}
	values, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	name, _ = v["name"].(string)
	ns, _ = v["namespace"].(string)
	if ns == "" {
		ns = "team-a"
	}
	return values, name, ns
}

// helmCommand is the helm binary of `make tools`, with its state in the
// suite's directory; t fails without it.
func helmCommand(t *testing.T) harness.Command {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(binDir(), "helm"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("no helm binary at %s: run make tools", p)
	}
	home := filepath.Join(scratch, "helm")
	return harness.Command{Path: p, Env: []string{
		"HELM_CACHE_HOME=" + filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME=" + filepath.Join(home, "config"),
		"HELM_DATA_HOME=" + filepath.Join(home, "data"),
	}}
}
