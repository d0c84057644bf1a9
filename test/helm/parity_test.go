package helm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"github.com/tfgen/tfgen/pkg/version"
)

// parityCase is one job rendered both ways with the same flags.
type parityCase struct {
	example string   // path from the repository root
	flags   []string // render settings, given to tfgen values and tfgen render alike
}

// parityCases are every example with default settings, and the settings
// the golden tests cover.
func parityCases(t *testing.T) []parityCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "examples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	var cases []parityCase
	for _, f := range files {
		cases = append(cases, parityCase{example: "examples/" + filepath.Base(f)})
	}
	cases = append(cases,
		parityCase{"examples/tfjob-gpu.yaml", []string{"--cloud", "gke"}},
		parityCase{"examples/tfjob-gpu.yaml", []string{"--accelerators", "examples/config/accelerators.yaml"}},
		parityCase{"examples/mxjob-kubeflow-gpu.yaml", []string{"--cloud", "azure"}},
		parityCase{"examples/tfjob-gang.yaml", []string{"--gang-scheduler", "volcano"}},
		parityCase{"examples/tfjob-gang.yaml", []string{"--gang-scheduler", "scheduler-plugins"}},
		parityCase{"examples/tfjob-gang.yaml", []string{"--gang-scheduler", "kueue"}},
		parityCase{"examples/tfjob-gang.yaml", []string{"--gang-scheduler", "kubernetes"}},
		parityCase{"examples/tfjob-sidecar.yaml", []string{"--image-entrypoints", "examples/config/image-entrypoints.yaml"}},
		parityCase{"examples/tfjob-mnist.yaml", []string{"--cluster-domain", "cluster.local", "--supervisor-image", "registry.example.com/tfsupervisor:v1", "--exclude-evaluator"}},
		parityCase{"examples/tfjob-sidecar.yaml", []string{"--kube-version", "1.35"}},
		parityCase{"test/helm/testdata/tfjob-port.yaml", nil},
		parityCase{"pkg/localrun/testdata/outcome.yaml", nil},
		parityCase{"examples/local-demo.yaml", []string{"--restart-scope", "Job", "--evaluator-grace", "2m"}},
		parityCase{"examples/tfjob-mnist.yaml", []string{"--locality", "zone"}},
		parityCase{"examples/tfjob-dragon.yaml", []string{"--locality", "none"}},
		parityCase{"testdata/locality/affinity.yaml", nil},
	)
	return cases
}

// parityMinors are the Kubernetes minors the parity test renders every
// case for: the oldest tfgen supports, the newest, and those between, where
// the objects change (1.35 restart rules and --complete, 1.36 the image
// volume, 1.37 gang kubernetes).
var parityMinors = []string{"1.34", "1.35", "1.36", "1.37"}

// TestTemplateParity checks, for every example that is a job and every
// minor M of parityMinors, that `tfgen values -f EX | helm template NAME
// charts/tfjob -n NS -f - --kube-version M.0` gives the objects `tfgen
// render -f EX -n NS --kube-version M` gives, compared object by object
// after parsing, besides the chart's test hook; or that both refuse the
// job with the same message. The values carry no kubeVersion, so the
// chart follows helm's --kube-version as it follows the cluster's under
// helm install; a case whose flags give --kube-version has it in the
// values too, and it wins over every M.
func TestTemplateParity(t *testing.T) {
	jobs, refused := 0, 0
	for _, tc := range parityCases(t) {
		t.Run(strings.Join(append([]string{strings.TrimSuffix(filepath.Base(tc.example), ".yaml")}, tc.flags...), " "), func(t *testing.T) {
			values := tfgen.Must(t, nil, append([]string{"values", "-f", tc.example}, tc.flags...)...)
			if given := slices.Contains(tc.flags, "--kube-version"); given != strings.Contains(string(values), "kubeVersion:") {
				t.Fatalf("tfgen values %v: kubeVersion written %v, want it written only with --kube-version:\n%s", tc.flags, !given, values)
			}
			name, ns := release(t, values)
			passing := passThrough(t, tc.example)
			for _, minor := range parityMinors {
				render := append([]string{"render", "-f", tc.example, "-n", ns}, tc.flags...)
				if !slices.Contains(tc.flags, "--kube-version") {
					render = append(render, "--kube-version", minor)
				}
				r := tfgen.Run(nil, render...)
				h := helm(t).Run(values, "template", name, chartDir, "-n", ns, "-f", "-", "--kube-version", minor+".0")
				if r.Err != nil {
					if msg := templateMessage(r.Stderr, tc.example); h.Err == nil || msg == "" || !strings.Contains(h.Stderr, msg) {
						t.Errorf("Kubernetes %s: tfgen render refused the job:\n%s\nhelm template: %v\n%s", minor, r.Stderr, h.Err, h.Stderr)
					}
					refused++
					continue
				}
				if h.Err != nil {
					t.Fatalf("Kubernetes %s: helm template: %v\n%s", minor, h.Err, h.Stderr)
				}
				want := parse(t, []byte(r.Stdout))
				for _, k := range passing {
					delete(want, k)
				}
				got := parse(t, []byte(h.Stdout))
				checkTestHook(t, hooks(got), name, ns)
				if d := diffObjects(want, got); d != "" {
					t.Errorf("Kubernetes %s: helm template differs from tfgen render:\n%s", minor, d)
				}
				jobs++
			}
		})
	}
	t.Logf("%d renders of jobs for Kubernetes %v: helm template gives tfgen render's objects; %d refused by both alike", jobs, parityMinors, refused)
}

// templateMessage returns the message of the first problem tfgen render
// printed for example, without its "EXAMPLE: KIND NAME: " prefix: the
// template's fail message, which helm template prints too.
func templateMessage(stderr, example string) string {
	line, _, _ := strings.Cut(stderr, "\n")
	rest, ok := strings.CutPrefix(line, example+": ")
	if !ok {
		return ""
	}
	_, msg, _ := strings.Cut(rest, ": ")
	return msg
}

// TestKubeflowSpecAsValues pastes the spec of every Kubeflow v1 example as
// the values: no tfgen on the way, so no defaults applied and the default
// settings of values.yaml. The objects are tfgen render's for the same
// Kubernetes version, but for the record's spec.json, which holds the
// values as given.
func TestKubeflowSpecAsValues(t *testing.T) {
	image := defaultImage(t)
	n := 0
	for _, tc := range parityCases(t) {
		if tc.flags != nil {
			continue
		}
		spec, name, ns, ok := kubeflowSpec(t, tc.example)
		if !ok {
			continue
		}
		n++
		t.Run(strings.TrimSuffix(filepath.Base(tc.example), ".yaml"), func(t *testing.T) {
			if ns == "" {
				ns = "team-a"
			}
			want := parse(t, tfgen.Must(t, nil, "render", "-f", tc.example, "-n", ns, "--supervisor-image", image))
			for _, k := range passThrough(t, tc.example) {
				delete(want, k)
			}
			got := parse(t, helm(t).Must(t, spec, "template", name, chartDir, "-n", ns, "-f", "-", "--kube-version", version.KubeVersion+".0"))
			hooks(got)
			record := "ConfigMap " + ns + "/" + name
			var gotSpec map[string]any
			if err := json.Unmarshal([]byte(got[record]["data"].(map[string]any)["spec.json"].(string)), &gotSpec); err != nil {
				t.Fatalf("%s spec.json: %v", record, err)
			}
			if gotSpec["name"] != name || gotSpec["namespace"] != ns {
				t.Errorf("spec.json names job %v in %v, want the release %s in %s", gotSpec["name"], gotSpec["namespace"], name, ns)
			}
			for _, objs := range []map[string]object{want, got} {
				delete(objs[record]["data"].(map[string]any), "spec.json")
				for k, o := range objs {
					objs[k] = typed(t, o)
				}
			}
			if d := diffObjects(want, got); d != "" {
				t.Errorf("helm template with the Kubeflow spec as values differs from tfgen render:\n%s", d)
			}
		})
	}
	if n < 5 {
		t.Errorf("only %d Kubeflow v1 examples", n)
	}
}

// release returns the release name and namespace for values: the job's
// name, its namespace or else team-a.
func release(t *testing.T, values []byte) (name, ns string) {
	t.Helper()
	var v struct{ Name, Namespace string }
	if err := yaml.Unmarshal(values, &v); err != nil {
		t.Fatal(err)
	}
	if v.Namespace == "" {
		v.Namespace = "team-a"
	}
	return v.Name, v.Namespace
}

// jobKinds are the kinds tfgen renders (the rest passes through).
var jobKinds = []string{"TFJob", "TfJob", "MXJob", "TensorFlowTrainingJob"}

// passThrough returns the keys of example's documents that are not jobs:
// tfgen render passes them through, the chart knows nothing of them.
func passThrough(t *testing.T, example string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, example))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for k, o := range parse(t, b) {
		if !slices.Contains(jobKinds, o["kind"].(string)) {
			out = append(out, k)
		}
	}
	return out
}

// kubeflowSpec returns the spec of example's Kubeflow v1 job as a values
// file, when it has only the fields of Kubeflow's TFJob or MXJob spec, with
// the job's labels and annotations.
func kubeflowSpec(t *testing.T, example string) (values []byte, name, ns string, ok bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, example))
	if err != nil {
		t.Fatal(err)
	}
	kubeflow := []string{"runPolicy", "successPolicy", "tfReplicaSpecs", "mxReplicaSpecs", "enableDynamicWorker", "jobMode"}
	for _, o := range parse(t, b) {
		if o["apiVersion"] != "kubeflow.org/v1" || !slices.Contains(jobKinds, o["kind"].(string)) {
			continue
		}
		spec := o["spec"].(map[string]any)
		for k := range spec {
			if !slices.Contains(kubeflow, k) {
				return nil, "", "", false
			}
		}
		meta := o["metadata"].(map[string]any)
		name, _ = meta["name"].(string)
		ns, _ = meta["namespace"].(string)
		// The job's labels and annotations have their own keys.
		for _, k := range []string{"labels", "annotations"} {
			if v, ok := meta[k]; ok {
				spec[k] = v
			}
		}
		values, err := yaml.Marshal(spec)
		if err != nil {
			t.Fatal(err)
		}
		return values, name, ns, true
	}
	return nil, "", "", false
}

// typed returns o after a round trip through its Go type, when client-go
// knows the kind: what the API server would store, so that `resources: {}`
// and no resources compare equal.
func typed(t *testing.T, o object) object {
	t.Helper()
	gv, err := schema.ParseGroupVersion(o["apiVersion"].(string))
	if err != nil {
		t.Fatal(err)
	}
	v, err := scheme.Scheme.New(gv.WithKind(o["kind"].(string)))
	if err != nil {
		return o
	}
	b, _ := json.Marshal(o)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", key(o), err)
	}
	b, _ = json.Marshal(v)
	var out object
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// defaultImage is the chart's default tfgen.supervisorImage.
func defaultImage(t *testing.T) string {
	t.Helper()
	var values struct {
		TFGen struct {
			SupervisorImage string `json:"supervisorImage"`
		} `json:"tfgen"`
	}
	readYAML(t, filepath.Join(chartDir, "values.yaml"), &values)
	return values.TFGen.SupervisorImage
}

// checkTestHook checks that the chart's only hook is its test pod.
func checkTestHook(t *testing.T, hooks map[string]object, name, ns string) {
	t.Helper()
	want := "Pod " + ns + "/" + name + "-test"
	if got := keys(hooks); len(got) != 1 || got[0] != want {
		t.Errorf("hooks %v, want the test pod %s", got, want)
		return
	}
	ann := hooks[want]["metadata"].(map[string]any)["annotations"].(map[string]any)
	if ann["helm.sh/hook"] != "test" {
		t.Errorf("%s: helm.sh/hook %v, want test", want, ann["helm.sh/hook"])
	}
}
