package dialect

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/input"
)

func doc(y string) input.Document {
	return input.Document{File: "job.yaml", Index: 0, Line: 1, Raw: []byte(y)}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want string
	}{{
		name: "unsupported version of a known group",
		yaml: "apiVersion: kubeflow.org/v2\nkind: TFJob\nmetadata: {name: j}\n",
		want: `job.yaml: TFJob j: apiVersion: Unsupported value: "kubeflow.org/v2": supported values: "kubeflow.caicloud.io/v1alpha1", "kubeflow.org/v1", "kubeflow.org/v1alpha1", "kubeflow.org/v1alpha2", "kubeflow.org/v1beta1", "kubeflow.org/v1beta2", "mlkube.io/v1beta1", "tensorflow.org/v1alpha1", "training.kubedl.io/v1alpha1"`,
	}, {
		name: "another project's TFJob",
		yaml: "apiVersion: example.com/v1\nkind: TFJob\nmetadata: {name: j}\n",
		want: `job.yaml: TFJob j: apiVersion: Unsupported value: "example.com/v1": TFJob from another project is not supported; tfgen reads TFJob from kubeflow.caicloud.io/v1alpha1, kubeflow.org/v1, kubeflow.org/v1alpha1, kubeflow.org/v1alpha2, kubeflow.org/v1beta1, kubeflow.org/v1beta2, mlkube.io/v1beta1, tensorflow.org/v1alpha1, training.kubedl.io/v1alpha1`,
	}, {
		name: "no apiVersion",
		yaml: "kind: TensorFlowTrainingJob\nmetadata: {name: t}\n",
		want: `job.yaml: TensorFlowTrainingJob t: apiVersion: Required value: tfgen reads TensorFlowTrainingJob from batch.tensorstack.dev/v1beta1`,
	}, {
		name: "MXJob in an unsupported version",
		yaml: "apiVersion: kubeflow.org/v1beta2\nkind: MxJob\nmetadata: {name: m}\n",
		want: `job.yaml: MxJob m: apiVersion: Unsupported value: "kubeflow.org/v1beta2": supported values: "fioravanzo.org/v1alpha1", "kubeflow.org/v1", "kubeflow.org/v1alpha1", "kubeflow.org/v1alpha2", "kubeflow.org/v1beta1", "mlkube.io/v1beta1", "mxnet.mlkube.io/v1beta1"`,
	}, {
		name: "not an object",
		yaml: "- a\n- b\n",
		want: `job.yaml:1: Invalid value: "a list": a document must be an object with apiVersion and kind`,
	}, {
		name: "wrong types, all at once",
		yaml: `apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: j}
spec:
  enableDynamicWorker: "yes"
  tfReplicaSpecs:
    Worker:
      replicas: two
      template: {spec: {containers: [{name: tensorflow, image: tf, resources: {limits: {cpu: lots}}}]}}
`,
		want: `job.yaml: TFJob j: spec.enableDynamicWorker: Invalid value: "yes": must be a boolean (true or false)
job.yaml: TFJob j: spec.tfReplicaSpecs[Worker].replicas: Invalid value: "two": must be an integer
job.yaml: TFJob j: spec.tfReplicaSpecs[Worker].template.spec.containers[0].resources.limits[cpu]: Invalid value: "lots": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
	}, {
		name: "unknown replica type and duplicate keys in other cases",
		yaml: `apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: j}
spec:
  tfReplicaSpecs:
    Wroker: {template: {spec: {containers: [{name: tensorflow, image: tf}]}}}
    Worker: {template: {spec: {containers: [{name: tensorflow, image: tf}]}}}
    worker: {template: {spec: {containers: [{name: tensorflow, image: tf}]}}}
    Scheduler: {template: {spec: {containers: [{name: tensorflow, image: tf}]}}}
    PS:
`,
		want: `job.yaml: TFJob j: spec.tfReplicaSpecs[PS]: Required value: a replica spec with a pod template
job.yaml: TFJob j: spec.tfReplicaSpecs[Scheduler]: Unsupported value: "Scheduler": supported values: "Chief", "Evaluator", "Master", "PS", "Worker"
job.yaml: TFJob j: spec.tfReplicaSpecs[Wroker]: Unsupported value: "Wroker": supported values: "Chief", "Evaluator", "Master", "PS", "Worker"
job.yaml: TFJob j: spec.tfReplicaSpecs[worker]: Duplicate value: "worker": the job already has a Worker replica spec at spec.tfReplicaSpecs[Worker]`,
	}, {
		name: "run policy twice, disagreeing",
		yaml: `apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: j}
spec:
  cleanPodPolicy: All
  backoffLimit: 3
  runPolicy: {cleanPodPolicy: None, backoffLimit: 3}
  tfReplicaSpecs:
    Worker: {template: {spec: {containers: [{name: tensorflow, image: tf}]}}}
`,
		want: `job.yaml: TFJob j: spec.cleanPodPolicy: Invalid value: "All": disagrees with spec.runPolicy.cleanPodPolicy (None); set only one`,
	}, {
		name: "list shape: types, duplicates, templates, spellings",
		yaml: `apiVersion: tensorflow.org/v1alpha1
kind: TfJob
metadata: {name: j}
spec:
  replicaSpecs:
    - tfReplicaType: MASTER
      template: {spec: {containers: [{name: tensorflow, image: tf}]}}
    - template: {spec: {containers: [{name: tensorflow, image: tf}]}}
    - tfReplicaType: WROKER
    - tfReplicaType: WORKER
      tf_replica_type: PS
      tfPort: 2222
      tf_port: 2223
  replica_specs: []
`,
		want: `job.yaml: TfJob j: spec.replica_specs: Forbidden: spec.replicaSpecs is also set; use one spelling
job.yaml: TfJob j: spec.replicaSpecs[1].tfReplicaType: Duplicate value: "MASTER": the job already has a Master replica spec at spec.replicaSpecs[0]
job.yaml: TfJob j: spec.replicaSpecs[2].tfReplicaType: Unsupported value: "WROKER": supported values: "MASTER", "PS", "WORKER"
job.yaml: TfJob j: spec.replicaSpecs[3].tf_replica_type: Invalid value: "PS": disagrees with spec.replicaSpecs[3].tfReplicaType (WORKER); set only one
job.yaml: TfJob j: spec.replicaSpecs[3].tf_port: Invalid value: 2223: disagrees with spec.replicaSpecs[3].tfPort (2222); set only one
job.yaml: TfJob j: spec.replicaSpecs[3].template: Required value: a pod template with a container named tensorflow`,
	}, {
		name: "kubeflow.org/v1alpha1 policies",
		yaml: `apiVersion: kubeflow.org/v1alpha1
kind: TFJob
metadata: {name: j}
spec:
  cleanPodPolicy: All
  terminationPolicy: {chief: {replicaName: CHIEF, replicaIndex: 0}}
  replicaSpecs:
    - template: {spec: {containers: [{name: tensorflow, image: tf}]}}
`,
		want: `job.yaml: TFJob j: spec.cleanPodPolicy: Unsupported value: "All": supported values: "CleanAll", "CleanNone", "CleanRunning"
job.yaml: TFJob j: spec.terminationPolicy.chief.replicaName: Unsupported value: "CHIEF": supported values: "MASTER", "PS", "WORKER"`,
	}, {
		name: "T9k values",
		yaml: `apiVersion: batch.tensorstack.dev/v1beta1
kind: TensorFlowTrainingJob
metadata: {name: t}
spec:
  runPolicy: {cleanUpPolicy: Running}
  tensorboardSpec: {trainingLogFilesets: ["s3://bucket/logs", "t9k://pvc/Bad_Name/x"]}
  runMode: {debug: {enabled: true, replicaSpecs: [{type: master}]}}
  replicaSpecs:
    - type: Master
      template: {spec: {containers: [{name: tensorflow, image: tf}]}}
    - template: {spec: {containers: [{name: tensorflow, image: tf}]}}
`,
		want: `job.yaml: TensorFlowTrainingJob t: spec.replicaSpecs[0].type: Unsupported value: "Master": supported values: "chief", "evaluator", "ps", "worker"
job.yaml: TensorFlowTrainingJob t: spec.replicaSpecs[1].type: Required value: one of chief, evaluator, ps, worker
job.yaml: TensorFlowTrainingJob t: spec.runPolicy.cleanUpPolicy: Unsupported value: "Running": supported values: "All", "None", "Unfinished"
job.yaml: TensorFlowTrainingJob t: spec.tensorboardSpec.trainingLogFilesets[0]: Invalid value: "s3://bucket/logs": tfgen reads filesets of the form t9k://pvc/NAME/PATH (a PersistentVolumeClaim and a directory in it)
job.yaml: TensorFlowTrainingJob t: spec.tensorboardSpec.trainingLogFilesets[1]: Invalid value: "t9k://pvc/Bad_Name/x": claim name "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')
job.yaml: TensorFlowTrainingJob t: spec.runMode.debug.replicaSpecs[0].type: Unsupported value: "master": supported values: "chief", "evaluator", "ps", "worker"`,
	}, {
		name: "MXJob modes and types",
		yaml: `apiVersion: kubeflow.org/v1
kind: MXJob
metadata: {name: m}
spec:
  jobMode: MXServe
  mxReplicaSpecs:
    Chief: {template: {spec: {containers: [{name: mxnet, image: mx}]}}}
`,
		want: `job.yaml: MXJob m: spec.mxReplicaSpecs[Chief]: Unsupported value: "Chief": supported values: "Scheduler", "Server", "Tuner", "TunerServer", "TunerTracker", "Worker"
job.yaml: MXJob m: spec.jobMode: Unsupported value: "MXServe": supported values: "MXTrain", "MXTune"`,
	}, {
		name: "list MXJob",
		yaml: `apiVersion: fioravanzo.org/v1alpha1
kind: MXJob
metadata: {name: m}
spec:
  jobMode: cluster
  replicaSpecs:
    - template: {spec: {containers: [{name: mxnet, image: mx}]}}
    - mxReplicaType: ps
      template: {spec: {containers: [{name: mxnet, image: mx}]}}
    - mxReplicaType: WORKER
`,
		want: `job.yaml: MXJob m: spec.replicaSpecs[0].mxReplicaType: Required value: one of SCHEDULER, SERVER, WORKER
job.yaml: MXJob m: spec.replicaSpecs[1].mxReplicaType: Unsupported value: "ps": supported values: "SCHEDULER", "SERVER", "WORKER"
job.yaml: MXJob m: spec.replicaSpecs[2].template: Required value: a pod template with a container named mxnet
job.yaml: MXJob m: spec.jobMode: Unsupported value: "cluster": supported values: "dist", "local"`,
	}, {
		name: "no name: located by line",
		yaml: "apiVersion: kubeflow.org/v1\nkind: TFJob\nspec: {tfReplicaSpecs: {Worker: {replicas: x}}}\n",
		want: `job.yaml:1: TFJob: spec.tfReplicaSpecs[Worker].replicas: Invalid value: "x": must be an integer`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Decode(doc(tt.yaml), Options{})
			if err == nil {
				t.Fatalf("want an error, got job %+v", res.Job)
			}
			var de *Error
			if !errors.As(err, &de) {
				t.Fatalf("want *Error, got %T %v", err, err)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMalformedYAML(t *testing.T) {
	d := input.Document{File: "jobs.yaml", Index: 1, Line: 20, Raw: []byte("apiVersion: kubeflow.org/v1\nkind: TFJob\nspec:\n  tfReplicaSpecs: {Worker: x: y}\n")}
	_, err := Decode(d, Options{})
	var se *input.SyntaxError
	if !errors.As(err, &se) || se.Line != 23 || !strings.HasPrefix(err.Error(), "jobs.yaml:23: invalid YAML: ") {
		t.Fatalf("want a syntax error at jobs.yaml:23, got %v", err)
	}
}

func TestErrorUnwrap(t *testing.T) {
	_, err := Decode(doc("apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: j}\nspec: {tfReplicaSpecs: {Worker: {replicas: x}}}\n"), Options{})
	var fe *field.Error
	if !errors.As(err, &fe) || fe.Field != "spec.tfReplicaSpecs[Worker].replicas" {
		t.Fatalf("errors.As(*field.Error) = %v", fe)
	}
	if JobError(nil, nil) != nil {
		t.Error("JobError of no errors is not nil")
	}
}
