package validate_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/dialect"
	"github.com/tfgen/tfgen/pkg/input"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/validate"
)

// decode converts one YAML document, failing the test on decoding errors.
func decode(t *testing.T, y string) *job.Job {
	t.Helper()
	res, err := dialect.Decode(input.Document{File: "job.yaml", Line: 1, Raw: []byte(y)}, dialect.Options{})
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return res.Job
}

func lines(j *job.Job) []string {
	var out []string
	for _, e := range validate.Job(j) {
		out = append(out, e.Error())
	}
	return out
}

const v1 = "apiVersion: kubeflow.org/v1\nkind: TFJob\n"

func TestTestdataIsValid(t *testing.T) {
	files, _ := filepath.Glob("../dialect/testdata/*.yaml")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, f := range files {
		docs, err := input.ReadPath(f, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			res, err := dialect.Decode(d, dialect.Options{})
			if err != nil || res.Job == nil {
				continue
			}
			if errs := validate.Job(res.Job); len(errs) > 0 {
				t.Errorf("%s: %v", f, errs)
			}
		}
	}
}

func TestJob(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string
	}{{
		name: "every problem at once, in the user's paths",
		yaml: v1 + `metadata: {name: My_Job}
spec:
  successPolicy: AnyWorker
  runPolicy: {cleanPodPolicy: Some, backoffLimit: -1, activeDeadlineSeconds: 0}
  tfReplicaSpecs:
    Chief:
      replicas: 2
      template: {spec: {containers: [{name: tensorflow, image: tf}]}}
    Worker:
      replicas: -1
      restartPolicy: Sometimes
      template: {spec: {containers: [{name: main, image: tf}, {name: side}], initContainers: [{name: init}]}}
`,
		want: []string{
			`metadata.name: Invalid value: "My_Job": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
			`spec.tfReplicaSpecs[Worker].replicas: Invalid value: -1: must be greater than or equal to 0`,
			`spec.tfReplicaSpecs[Worker].restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "ExitCode", "Never", "OnFailure"`,
			`spec.tfReplicaSpecs[Worker].template.spec.containers: Required value: a container named "tensorflow", the training container`,
			`spec.tfReplicaSpecs[Worker].template.spec.initContainers[0].image: Required value`,
			`spec.tfReplicaSpecs[Worker].template.spec.containers[1].image: Required value`,
			`spec.tfReplicaSpecs[Chief].replicas: Invalid value: 2: a job has at most one chief`,
			`spec.runPolicy.cleanPodPolicy: Unsupported value: "Some": supported values: "All", "None", "Running"`,
			`spec.runPolicy.activeDeadlineSeconds: Invalid value: 0: must be greater than 0`,
			`spec.runPolicy.backoffLimit: Invalid value: -1: must be greater than or equal to 0`,
			`spec.successPolicy: Unsupported value: "AnyWorker": supported values: "", "AllWorkers"`,
		},
	}, {
		name: "chief and master together",
		yaml: v1 + `metadata: {name: j}
spec:
  tfReplicaSpecs:
    chief: {template: {spec: {containers: [{name: tensorflow, image: tf}]}}}
    Master: {template: {spec: {containers: [{name: tensorflow, image: tf}]}}}
`,
		want: []string{`spec.tfReplicaSpecs[Master]: Forbidden: a job has at most one chief or master, and spec.tfReplicaSpecs[chief] is also set`},
	}, {
		name: "older v1: flat run policy path",
		yaml: v1 + `metadata: {name: j}
spec:
  cleanPodPolicy: Everything
  tfReplicaSpecs:
    Worker: {template: {spec: {containers: [{name: tensorflow, image: tf}]}}}
`,
		want: []string{`spec.cleanPodPolicy: Unsupported value: "Everything": supported values: "All", "None", "Running"`},
	}, {
		name: "list shape: master replicas and template restart policy",
		yaml: `apiVersion: tensorflow.org/v1alpha1
kind: TfJob
metadata: {name: j}
spec:
  replicaSpecs:
    - replicas: 1
      tfReplicaType: WORKER
      template: {spec: {containers: [{name: tensorflow, image: tf}]}}
    - replicas: 2
      tfPort: 70000
      template: {spec: {containers: [{name: tf, image: tf}]}}
`,
		want: []string{
			`spec.replicaSpecs[1].tfPort: Invalid value: 70000: must be between 1 and 65535, inclusive`,
			`spec.replicaSpecs[1].template.spec.containers: Required value: a container named "tensorflow", the training container`,
			`spec.replicaSpecs[1].replicas: Invalid value: 2: a job has at most one master`,
		},
	}, {
		name: "T9k paths",
		yaml: `apiVersion: batch.tensorstack.dev/v1beta1
kind: TensorFlowTrainingJob
metadata: {name: j}
spec:
  runPolicy: {backoffLimit: -2}
  replicaSpecs:
    - type: worker
      restartPolicy: WhenItFeelsRight
      template: {spec: {containers: [{name: tensorflow}]}}
`,
		want: []string{
			`spec.replicaSpecs[0].restartPolicy: Unsupported value: "WhenItFeelsRight": supported values: "Always", "ExitCode", "Never", "OnFailure"`,
			`spec.replicaSpecs[0].template.spec.containers[0].image: Required value`,
			`spec.runPolicy.backoffLimit: Invalid value: -2: must be greater than or equal to 0`,
		},
	}, {
		name: "MXNet: two schedulers",
		yaml: `apiVersion: kubeflow.org/v1
kind: MXJob
metadata: {name: m}
spec:
  mxReplicaSpecs:
    Scheduler: {replicas: 2, template: {spec: {containers: [{name: mxnet, image: mx}]}}}
    Worker: {template: {spec: {containers: [{name: mxnet, image: mx}]}}}
`,
		want: []string{`spec.mxReplicaSpecs[Scheduler].replicas: Invalid value: 2: a dist MXNet job has exactly one scheduler`},
	}, {
		name: "MXNet: dist without scheduler, list shape",
		yaml: `apiVersion: fioravanzo.org/v1alpha1
kind: MXJob
metadata: {name: m}
spec:
  replicaSpecs:
    - mxReplicaType: WORKER
      template: {spec: {containers: [{name: mxnet, image: mx}]}}
`,
		want: []string{`spec.replicaSpecs: Required value: a dist MXNet job needs one Scheduler replica`},
	}, {
		name: "MXNet: local without scheduler is fine",
		yaml: `apiVersion: fioravanzo.org/v1alpha1
kind: MXJob
metadata: {name: m}
spec:
  jobMode: local
  replicaSpecs:
    - mxReplicaType: WORKER
      template: {spec: {containers: [{name: mxnet, image: mx}]}}
`,
	}, {
		name: "DRAGON bounds",
		yaml: v1 + `metadata: {name: j}
spec:
  max-instances: 4
  min-instances: 5
  tfReplicaSpecs:
    Worker: {replicas: 6, template: {spec: {containers: [{name: tensorflow, image: tf}]}}}
`,
		want: []string{
			`spec.min-instances: Invalid value: 5: must be no more than spec.max-instances (4)`,
			`spec.tfReplicaSpecs[Worker].replicas: Invalid value: 6: must be between spec.min-instances (5) and spec.max-instances (4)`,
		},
	}, {
		name: "TensorBoard without logDir",
		yaml: `apiVersion: tensorflow.org/v1alpha1
kind: TfJob
metadata: {name: j}
spec:
  replicaSpecs:
    - template: {spec: {containers: [{name: tensorflow, image: tf}]}}
  tensorboard: {serviceType: Public}
`,
		want: []string{
			`spec.tensorboard.logDir: Required value: the directory TensorBoard reads event files from`,
			`spec.tensorboard.serviceType: Unsupported value: "Public": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"`,
		},
	}, {
		name: "termination policy names a missing replica",
		yaml: `apiVersion: kubeflow.org/v1alpha1
kind: TFJob
metadata: {name: j}
spec:
  terminationPolicy: {chief: {replicaName: WORKER, replicaIndex: 3}}
  replicaSpecs:
    - {replicas: 2, tfReplicaType: WORKER, template: {spec: {containers: [{name: tensorflow, image: tf}]}}}
`,
		want: []string{`spec.terminationPolicy.chief: Invalid value: {"type":"Worker","index":3}: the index must be at least 0 and less than the number of replicas of the type`},
	}, {
		name: "no replica specs",
		yaml: v1 + "metadata: {name: j}\nspec: {}\n",
		want: []string{`spec.tfReplicaSpecs: Required value: at least one replica spec`},
	}, {
		name: "no name",
		yaml: v1 + "metadata: {namespace: Team_A}\nspec: {tfReplicaSpecs: {Worker: {template: {spec: {containers: [{name: tensorflow, image: tf}]}}}}}\n",
		want: []string{
			`metadata.name: Required value: set metadata.name (or metadata.generateName)`,
			`metadata.namespace: Invalid value: "Team_A": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, lines(decode(t, tt.yaml))); diff != "" {
				t.Errorf("validate.Job (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNameLength(t *testing.T) {
	worker := func(types ...job.ReplicaType) *job.Job {
		j := &job.Job{TFReplicaSpecs: map[job.ReplicaType]*job.ReplicaSpec{}}
		for _, ty := range types {
			j.TFReplicaSpecs[ty] = &job.ReplicaSpec{}
		}
		return j
	}
	tests := []struct {
		name string
		job  *job.Job
		want int
	}{
		{"worker: StatefulSet NAME-worker within 52", worker(job.Worker), 52 - len("-worker")},
		{"evaluator is the longest TF type", worker(job.Worker, job.Evaluator), 52 - len("-evaluator")},
		{"ps", worker(job.PS), 52 - len("-ps")},
		{"MXNet tunertracker", &job.Job{MXReplicaSpecs: map[job.ReplicaType]*job.ReplicaSpec{job.TunerTracker: {}}}, 52 - len("-tunertracker")},
		{"TensorBoard Service", func() *job.Job { j := worker(); j.TensorBoard = &job.TensorBoard{}; return j }(), 63 - len("-tensorboard")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := validate.MaxNameLength(tt.job)
			if got != tt.want {
				t.Errorf("MaxNameLength = %d (%s), want %d", got, why, tt.want)
			}
		})
	}
	// The longest name passes; one more character fails with the reason.
	j := decode(t, v1+"metadata: {name: "+strings.Repeat("a", 42)+"}\nspec: {tfReplicaSpecs: {Evaluator: {template: {spec: {containers: [{name: tensorflow, image: tf}]}}}}}\n")
	if errs := validate.Job(j); len(errs) != 0 {
		t.Errorf("42 characters: %v", errs)
	}
	j.Name += "a"
	want := `metadata.name: Invalid value: "` + j.Name + `": must be no more than 42 characters (it has 43): StatefulSet NAME-evaluator is limited to 52 characters (its pods' controller-revision-hash label value, NAME-evaluator-HASH, must fit in 63)`
	if diff := cmp.Diff([]string{want}, lines(j)); diff != "" {
		t.Errorf("43 characters (-want +got):\n%s", diff)
	}
}

func TestDirectJob(t *testing.T) {
	j := &job.Job{Name: "j", TFReplicaSpecs: map[job.ReplicaType]*job.ReplicaSpec{
		job.Scheduler: {Template: tfPod()},
		job.Worker:    {RestartPolicy: job.RestartExitCode, RetryableExitCodes: []int32{0, 137, 256}, MaxRestarts: ptr(int32(-1)), Template: tfPod()},
	}}
	job.SetDefaults(j)
	want := []string{
		`spec.tfReplicaSpecs[Scheduler]: Unsupported value: "Scheduler": supported values: "Chief", "Evaluator", "Master", "PS", "Worker"`,
		`spec.tfReplicaSpecs[Worker].retryableExitCodes[0]: Invalid value: 0: must be between 1 and 255`,
		`spec.tfReplicaSpecs[Worker].retryableExitCodes[2]: Invalid value: 256: must be between 1 and 255`,
		`spec.tfReplicaSpecs[Worker].maxRestarts: Invalid value: -1: must be greater than or equal to 0`,
	}
	if diff := cmp.Diff(want, lines(j)); diff != "" {
		t.Errorf("validate.Job (-want +got):\n%s", diff)
	}
}
