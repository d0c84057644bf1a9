package dialect

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tfgen/tfgen/pkg/input"
	"github.com/tfgen/tfgen/pkg/job"
)

func decodeOne(t *testing.T, name, y string) *job.Job {
	t.Helper()
	res, err := Decode(input.Document{File: name, Line: 1, Raw: []byte(y)}, Options{Strict: true})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(res.Warnings) > 0 {
		t.Errorf("%s: unexpected warnings %q", name, res.Warnings)
	}
	return res.Job
}

func decodeTestdata(t *testing.T, file string) *job.Job {
	t.Helper()
	docs, err := input.ReadPath("testdata/"+file, nil)
	if err != nil || len(docs) != 1 {
		t.Fatalf("%s: %d documents, %v", file, len(docs), err)
	}
	res, err := Decode(docs[0], Options{})
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return res.Job
}

var ignoreSource = cmpopts.IgnoreFields(job.Job{}, "Source")

// TestSameJobInSeveralVersions proves that one job written in different
// dialects and versions converts to the same canonical job.
func TestSameJobInSeveralVersions(t *testing.T) {
	groups := [][]string{
		{"kubeflow-v1beta2-tfjob.yaml", "kubeflow-v1beta1-tfjob.yaml", "kubeflow-v1alpha2-tfjob.yaml", "kubeflow-v1-tfjob-flat.yaml"},
		{"kubeflow-v1-mxjob.yaml", "kubeflow-v1beta1-mxjob.yaml", "kubeflow-v1alpha2-mxjob.yaml"},
		{"kubeflow-v1alpha1-mxjob.yaml", "mlkube-v1beta1-mxjob.yaml", "mxnet-mlkube-v1beta1-mxjob.yaml"},
	}
	for _, g := range groups {
		want := decodeTestdata(t, g[0])
		for _, f := range g[1:] {
			if diff := cmp.Diff(want, decodeTestdata(t, f), ignoreSource); diff != "" {
				t.Errorf("%s and %s differ (-%s +%s):\n%s", g[0], f, g[0], f, diff)
			}
		}
	}
}

const (
	pod   = "{metadata: {labels: {app: x}}, spec: {restartPolicy: OnFailure, containers: [{name: tensorflow, image: 'tf:1', command: [python, t.py]}]}}"
	mxPod = "{spec: {restartPolicy: OnFailure, containers: [{name: mxnet, image: 'mx:1'}]}}"
)

// TestSameJobAcrossShapes writes one job in list- and map-shaped dialects.
func TestSameJobAcrossShapes(t *testing.T) {
	tests := []struct {
		name string
		docs map[string]string
	}{{
		name: "TensorFlow master, workers and PS",
		docs: map[string]string{
			"kubeflow.org/v1": `apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: j, labels: {team: a}}
spec:
  tfReplicaSpecs:
    MASTER: {replicas: 1, restartPolicy: OnFailure, template: ` + pod + `}
    Worker: {replicas: 3, restartPolicy: OnFailure, template: ` + pod + `}
    ps: {replicas: 2, restartPolicy: OnFailure, template: ` + pod + `}
`,
			"kubeflow.org/v1beta2": `apiVersion: kubeflow.org/v1beta2
kind: TFJob
metadata: {name: j, labels: {team: a}}
spec:
  cleanPodPolicy: Running
  tfReplicaSpecs:
    Master: {restartPolicy: OnFailure, template: ` + pod + `}
    WORKER: {replicas: 3, restartPolicy: OnFailure, template: ` + pod + `}
    PS: {replicas: 2, restartPolicy: OnFailure, template: ` + pod + `}
`,
			"tensorflow.org/v1alpha1": `apiVersion: tensorflow.org/v1alpha1
kind: TfJob
metadata: {name: j, labels: {team: a}}
spec:
  replicaSpecs:
    - {tfReplicaType: PS, replicas: 2, template: ` + pod + `}
    - {template: ` + pod + `}
    - {tfReplicaType: worker, replicas: 3, tfPort: 2222, template: ` + pod + `}
`,
			"mlkube.io/v1beta1": `apiVersion: mlkube.io/v1beta1
kind: TfJob
metadata: {name: j, labels: {team: a}}
spec:
  replica_specs:
    - {tf_replica_type: MASTER, template: ` + pod + `}
    - {tf_replica_type: WORKER, replicas: 3, tf_port: 2222, template: ` + pod + `}
    - {tf_replica_type: PS, replicas: 2, template: ` + pod + `}
`,
			"kubeflow.org/v1alpha1": `apiVersion: kubeflow.org/v1alpha1
kind: TFJob
metadata: {name: j, labels: {team: a}}
spec:
  cleanPodPolicy: CleanRunning
  replicaSpecs:
    - {tfReplicaType: MASTER, template: ` + pod + `}
    - {tfReplicaType: WORKER, replicas: 3, template: ` + pod + `}
    - {tfReplicaType: PS, replicas: 2, template: ` + pod + `}
`,
		},
	}, {
		name: "TensorFlow chief and workers with a run policy",
		docs: map[string]string{
			"kubeflow.org/v1": `apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: t}
spec:
  runPolicy: {backoffLimit: 5, activeDeadlineSeconds: 600, cleanPodPolicy: Running}
  tfReplicaSpecs:
    Chief: {restartPolicy: OnFailure, template: ` + pod + `}
    Worker: {replicas: 4, restartPolicy: OnFailure, template: ` + pod + `}
`,
			"batch.tensorstack.dev/v1beta1": `apiVersion: batch.tensorstack.dev/v1beta1
kind: TensorFlowTrainingJob
metadata: {name: t}
spec:
  runPolicy: {backoffLimit: 5, activeDeadlineSeconds: 600, cleanUpPolicy: Unfinished}
  replicaSpecs:
    - {type: chief, restartPolicy: OnFailure, template: ` + pod + `}
    - {type: worker, replicas: 4, restartPolicy: OnFailure, template: ` + pod + `}
`,
		},
	}, {
		name: "MXNet scheduler, servers and workers",
		docs: map[string]string{
			"kubeflow.org/v1": `apiVersion: kubeflow.org/v1
kind: MXJob
metadata: {name: m}
spec:
  jobMode: MXTrain
  mxReplicaSpecs:
    Scheduler: {restartPolicy: OnFailure, template: ` + mxPod + `}
    Server: {replicas: 2, restartPolicy: OnFailure, template: ` + mxPod + `}
    Worker: {replicas: 2, restartPolicy: OnFailure, template: ` + mxPod + `}
`,
			"fioravanzo.org/v1alpha1": `apiVersion: fioravanzo.org/v1alpha1
kind: MXJob
metadata: {name: m}
spec:
  jobMode: dist
  replicaSpecs:
    - {mxReplicaType: SCHEDULER, PsRootPort: 9091, template: ` + mxPod + `}
    - {mxReplicaType: SERVER, replicas: 2, template: ` + mxPod + `}
    - {mxReplicaType: WORKER, replicas: 2, template: ` + mxPod + `}
`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var first string
			var want *job.Job
			for _, v := range sortedKeys(tt.docs) {
				got := decodeOne(t, v, tt.docs[v])
				if want == nil {
					first, want = v, got
					continue
				}
				if diff := cmp.Diff(want, got, ignoreSource); diff != "" {
					t.Errorf("%s and %s differ (-%s +%s):\n%s", first, v, first, v, diff)
				}
			}
		})
	}
}

// TestListShapeRestartDefaults: list-shaped dialects take the replica's
// restart policy from its pod template, else from the seeds' rules.
func TestListShapeRestartDefaults(t *testing.T) {
	j := decodeOne(t, "tf", `apiVersion: tensorflow.org/v1alpha1
kind: TfJob
metadata: {name: j}
spec:
  replicaSpecs:
    - template: {spec: {containers: [{name: tensorflow, image: tf}]}}
    - {tfReplicaType: WORKER, template: {spec: {containers: [{name: tensorflow, image: tf}]}}}
    - {tfReplicaType: PS, template: {spec: {restartPolicy: Never, containers: [{name: tensorflow, image: tf}]}}}
`)
	got := map[job.ReplicaType]job.RestartPolicy{}
	for t, s := range j.TFReplicaSpecs {
		got[t] = s.RestartPolicy
	}
	want := map[job.ReplicaType]job.RestartPolicy{job.Master: job.RestartExitCode, job.Worker: job.RestartOnFailure, job.PS: job.RestartNever}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("restart policies (-want +got):\n%s", diff)
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestListShapePorts: tfPort wins, else the tensorflow container's
// tfjob-port, else 2222; a PS the operator generated (IsDefaultPS, as
// `kubectl get -o yaml` printed it) is generated again.
func TestListShapePorts(t *testing.T) {
	j := decodeOne(t, "tf", `apiVersion: tensorflow.org/v1alpha1
kind: TfJob
metadata: {name: j}
spec:
  replicaSpecs:
    - tfPort: 3000
      template: {spec: {containers: [{name: tensorflow, image: tf, ports: [{name: tfjob-port, containerPort: 4000}]}]}}
    - tfReplicaType: WORKER
      template: {spec: {containers: [{name: tensorflow, image: tf, ports: [{name: tfjob-port, containerPort: 4000}]}]}}
    - tfReplicaType: PS
      IsDefaultPS: true
      template: {spec: {containers: [{name: tensorflow, image: tensorflow/tensorflow:1.3.0, volumeMounts: [{name: ps-config-volume, mountPath: /ps-server}]}]}}
`)
	got := map[job.ReplicaType]int32{}
	for ty, s := range j.TFReplicaSpecs {
		got[ty] = *s.Port
	}
	if diff := cmp.Diff(map[job.ReplicaType]int32{job.Master: 3000, job.Worker: 4000, job.PS: 2222}, got); diff != "" {
		t.Errorf("ports (-want +got):\n%s", diff)
	}
	ps := j.TFReplicaSpecs[job.PS].Template.Spec.Containers
	if len(ps) != 1 || len(ps[0].Command) == 0 || len(ps[0].VolumeMounts) != 0 {
		t.Errorf("PS containers: %+v", ps)
	}
}
