package dialect

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/input"
)

const typos = `apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: j
  lables: {a: b}
spec:
  runPolicy: {cleanPodPolicy: All, backofLimit: 3}
  tfReplicaSpec: {}
  tfReplicaSpecs:
    Worker:
      replica: 2
      restartPolicy: Never
      template:
        spec:
          restartPolicy: OnFailure
          containers:
            - name: tensorflow
              image: tf
              imagePullPolicyy: Always
              comand: [python]
`

func TestUnknownFieldWarnings(t *testing.T) {
	res, err := Decode(doc(typos), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`job.yaml: TFJob j: unknown field "metadata.lables" (did you mean "labels"?)`,
		`job.yaml: TFJob j: unknown field "spec.runPolicy.backofLimit" (did you mean "backoffLimit"?)`,
		`job.yaml: TFJob j: unknown field "spec.tfReplicaSpec" (did you mean "tfReplicaSpecs"?)`,
		`job.yaml: TFJob j: unknown field "spec.tfReplicaSpecs[Worker].replica" (did you mean "replicas"?)`,
		`job.yaml: TFJob j: unknown field "spec.tfReplicaSpecs[Worker].template.spec.containers[0].comand" (did you mean "command"?)`,
		`job.yaml: TFJob j: unknown field "spec.tfReplicaSpecs[Worker].template.spec.containers[0].imagePullPolicyy" (did you mean "imagePullPolicy"?)`,
		`job.yaml: TFJob j: spec.tfReplicaSpecs[Worker].template.spec.restartPolicy (OnFailure) has no effect: spec.tfReplicaSpecs[Worker].restartPolicy (Never) decides restarts`,
	}
	if diff := cmp.Diff(want, res.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	// Unknown fields are dropped, as the API server drops them.
	if w := res.Job.TFReplicaSpecs["Worker"]; *w.Replicas != 1 || len(w.Template.Spec.Containers[0].Command) != 0 {
		t.Errorf("unknown fields were used: %+v", w)
	}
}

func TestStrict(t *testing.T) {
	res, err := Decode(doc(typos), Options{Strict: true})
	var de *Error
	if !errors.As(err, &de) {
		t.Fatalf("want *Error, got %v", err)
	}
	if len(de.Errs) != 6 {
		t.Errorf("want 6 unknown-field errors, got %d:\n%v", len(de.Errs), err)
	}
	first := `job.yaml: TFJob j: metadata.lables: Forbidden: unknown field (did you mean "labels"?)`
	if got := strings.Split(err.Error(), "\n")[0]; got != first {
		t.Errorf("first line:\n got %s\nwant %s", got, first)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "has no effect") {
		t.Errorf("warnings alongside the error: %q", res.Warnings)
	}
}

func TestDuplicateKeys(t *testing.T) {
	y := "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: j}\nspec:\n  tfReplicaSpecs:\n    Worker:\n      replicas: 2\n      replicas: 3\n" +
		"      template: {spec: {containers: [{name: tensorflow, image: tf}]}}\n"
	d := input.Document{File: "job.yaml", Line: 5, Raw: []byte(y)}
	res, err := Decode(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !regexp.MustCompile(`^job.yaml: TFJob j: line 12: .*"replicas" already set.*\(the last value is used\)$`).MatchString(res.Warnings[0]) {
		t.Errorf("warnings: %q", res.Warnings)
	}
	if *res.Job.TFReplicaSpecs["Worker"].Replicas != 3 {
		t.Errorf("want the last value")
	}
	if _, err := Decode(d, Options{Strict: true}); err == nil || !strings.HasPrefix(err.Error(), "job.yaml:12: invalid YAML:") {
		t.Errorf("strict: %v", err)
	}
}

func TestNoEffectWarnings(t *testing.T) {
	y := `apiVersion: mlkube.io/v1beta1
kind: MxJob
metadata: {name: m}
spec:
  mxImage: mxnet/python
  RuntimeId: x1y2
  replicaSpecs:
    - mxReplicaType: SCHEDULER
      template: {spec: {containers: [{name: mxnet, image: mx}]}}
status: {phase: Done}
`
	res, err := Decode(doc(y), Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`job.yaml: MxJob m: spec.mxImage is accepted but has no effect: the operator never used it (MXNet has no default server container)`}
	if diff := cmp.Diff(want, res.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}
