package dialect

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPassthrough(t *testing.T) {
	for _, y := range []string{
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
		"apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: p}\n",
		"apiVersion: v1\nkind: List\nitems: []\n",
	} {
		res, err := Decode(doc(y), Options{Strict: true})
		if err != nil || !res.Passthrough || res.Job != nil {
			t.Errorf("%q: want pass-through, got %+v, %v", y, res, err)
		}
	}
}

// TestPassthroughNeedsTypeMeta: a document without apiVersion or kind is
// no object kubectl would apply.
func TestPassthroughNeedsTypeMeta(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"apiVersion: v1\nmetadata: {name: no-kind}\n", "job.yaml:1: kind: Required value: every document needs apiVersion and kind"},
		{"kind: ConfigMap\nmetadata: {name: c}\n", "job.yaml: ConfigMap c: apiVersion: Required value: every document needs apiVersion and kind"},
		{"metadata: {name: neither}\n", "job.yaml:1: apiVersion: Required value: every document needs apiVersion and kind\njob.yaml:1: kind: Required value: every document needs apiVersion and kind"},
		{"apiVersion: v1\nkind: 7\n", "job.yaml:1: kind: Invalid value: 7: must be a string"},
	} {
		res, err := Decode(doc(tc.doc), Options{})
		if err == nil || res.Passthrough || err.Error() != tc.want {
			t.Errorf("%q: got %+v, %v\nwant %s", tc.doc, res, err, tc.want)
		}
	}
}

func TestKindInAnyCase(t *testing.T) {
	for _, kind := range []string{"TFJob", "TfJob", "tfjob"} {
		y := "apiVersion: kubeflow.org/v1\nkind: " + kind + "\nmetadata: {name: j}\nspec: {tfReplicaSpecs: {Worker: {template: {spec: {containers: [{name: tensorflow, image: tf}]}}}}}\n"
		res, err := Decode(doc(y), Options{})
		if err != nil || res.Job == nil || res.Job.Source.Kind != kind {
			t.Errorf("kind %s: %+v, %v", kind, res, err)
		}
	}
}

func TestGenerateName(t *testing.T) {
	spec := "spec:\n  tfReplicaSpecs:\n    Worker: {replicas: %s, template: {spec: {containers: [{name: tensorflow, image: tf}]}}}\n"
	mk := func(meta, replicas string) string {
		return "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: " + meta + "\n" + strings.Replace(spec, "%s", replicas, 1)
	}
	name := func(y string) (string, []string) {
		t.Helper()
		res, err := Decode(doc(y), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return res.Job.Name, res.Warnings
	}
	a, warnings := name(mk("{generateName: mnist-}", "2"))
	if !regexp.MustCompile(`^mnist-[0-9a-f]{5}$`).MatchString(a) {
		t.Errorf("name %q: want mnist- and 5 hex digits", a)
	}
	want := []string{`job.yaml: TFJob ` + a + `: metadata.generateName: the job is named "` + a + `", the prefix plus a hash of its spec, the same on every run; set metadata.name to choose the name`}
	if diff := cmp.Diff(want, warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	// The same spec, however formatted, gives the same name; another spec another.
	reformatted := "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata:\n  generateName: mnist-\nspec: {tfReplicaSpecs: {Worker: {template: {spec: {containers: [{image: tf, name: tensorflow}]}}, replicas: 2}}}\n"
	if b, _ := name(reformatted); b != a {
		t.Errorf("same spec: %q and %q", a, b)
	}
	if c, _ := name(mk("{generateName: mnist-}", "3")); c == a {
		t.Errorf("different specs share the name %q", c)
	}
	if d, w := name(mk("{name: fixed, generateName: mnist-}", "2")); d != "fixed" || len(w) != 0 {
		t.Errorf("metadata.name wins: %q %q", d, w)
	}
}

func TestSupported(t *testing.T) {
	var got []string
	for _, d := range Supported() {
		got = append(got, d.APIVersion+" "+d.Kind)
	}
	want := []string{
		"fioravanzo.org/v1alpha1 MXJob", "kubeflow.org/v1 MXJob", "kubeflow.org/v1alpha1 MXJob", "kubeflow.org/v1alpha2 MXJob",
		"kubeflow.org/v1beta1 MXJob", "mlkube.io/v1beta1 MxJob", "mxnet.mlkube.io/v1beta1 MxJob",
		"batch.tensorstack.dev/v1beta1 TensorFlowTrainingJob",
		"kubeflow.caicloud.io/v1alpha1 TFJob", "kubeflow.org/v1 TFJob", "kubeflow.org/v1alpha1 TFJob", "kubeflow.org/v1alpha2 TFJob",
		"kubeflow.org/v1beta1 TFJob",
		"kubeflow.org/v1beta2 TFJob", "mlkube.io/v1beta1 TfJob", "tensorflow.org/v1alpha1 TfJob", "training.kubedl.io/v1alpha1 TFJob",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Supported (-want +got):\n%s", diff)
	}
	for _, k := range []string{"TFJob", "tfjob", "MxJob", "TensorFlowTrainingJob"} {
		if !IsJobKind(k) {
			t.Errorf("IsJobKind(%q) = false", k)
		}
	}
	if IsJobKind("PyTorchJob") {
		t.Error("IsJobKind(PyTorchJob) = true")
	}
}
