package dialect

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/job"
)

// caicloudJob is a kubeflow.caicloud.io/v1alpha1 TFJob j with spec s.
func caicloudJob(s string) string {
	return "apiVersion: kubeflow.caicloud.io/v1alpha1\nkind: TFJob\nmetadata: {name: j}\nspec:\n" + s
}

const (
	// caiPod has no restartPolicy: the pod default, Always.
	caiPod = "{spec: {containers: [{name: tensorflow, image: 'tf:1', command: [python, t.py]}]}}"
	// argsNote is the warning every distributed job gets.
	argsNote = "job.yaml: TFJob j: spec.tfReplicaSpec: the caicloud controller passed the cluster to each replica as the arguments of its first container " +
		"(--worker_hosts, --ps_hosts, --job_name, --task_index, in place of the template's args); tfgen passes it as TF_CONFIG, " +
		"as Kubeflow's operators do, and keeps the template's args: a program that reads those flags must read TF_CONFIG instead"
)

func TestCaicloudErrors(t *testing.T) {
	tests := []struct {
		name string
		spec string
		want []string
	}{{
		name: "Serving is no training job",
		spec: "  type: Serving\n  tfReplicaSpec: [{replicas: 2, template: " + caiPod + "}]\n",
		want: []string{`spec.type: Unsupported value: "Serving": a Serving job serves a trained model and never ends; tfgen renders training jobs only: run the serving container as a Deployment with a Service`},
	}, {
		name: "TensorBoard is no training job",
		spec: "  type: TensorBoard\n  tfReplicaSpec: [{template: " + caiPod + "}]\n",
		want: []string{`spec.type: Unsupported value: "TensorBoard": a TensorBoard job runs TensorBoard alone; tfgen renders training jobs only: run the TensorBoard container as a Deployment with a Service`},
	}, {
		name: "unknown type",
		spec: "  type: training\n  tfReplicaSpec: [{tfReplicaType: Worker, template: " + caiPod + "}]\n",
		want: []string{`spec.type: Unsupported value: "training": supported values: "Training"`},
	}, {
		name: "replica types spelled as the controller compared them",
		spec: "  tfReplicaSpec:\n  - {tfReplicaType: worker, template: " + caiPod + "}\n  - {template: " + caiPod + "}\n",
		want: []string{
			`spec.tfReplicaSpec[0].tfReplicaType: Unsupported value: "worker": supported values: "Local", "PS", "Worker"`,
			`spec.tfReplicaSpec[1].tfReplicaType: Required value: one of Local, PS, Worker`,
		},
	}, {
		name: "Local runs alone",
		spec: "  tfReplicaSpec:\n  - {tfReplicaType: Worker, template: " + caiPod + "}\n  - {tfReplicaType: Local, template: " + caiPod + "}\n",
		want: []string{`spec.tfReplicaSpec[1].tfReplicaType: Invalid value: "Local": a Local replica spec must be the job's only one: the caicloud controller ran it alone, as one pod`},
	}, {
		name: "parameter servers without workers",
		spec: "  tfReplicaSpec: [{tfReplicaType: PS, template: " + caiPod + "}]\n",
		want: []string{`spec.tfReplicaSpec: Required value: a Worker replica spec: the caicloud controller's job succeeded once its workers had`},
	}, {
		name: "no template, a second Worker",
		spec: "  tfReplicaSpec:\n  - {tfReplicaType: PS}\n  - {tfReplicaType: Worker, template: " + caiPod + "}\n  - {tfReplicaType: Worker, template: " + caiPod + "}\n",
		want: []string{
			`spec.tfReplicaSpec[0].template: Required value: a pod template`,
			`spec.tfReplicaSpec[2].tfReplicaType: Duplicate value: "Worker": the job already has a Worker replica spec at spec.tfReplicaSpec[1]`,
		},
	}, {
		name: "a pod's restart policies only",
		spec: "  tfReplicaSpec: [{tfReplicaType: Worker, template: {spec: {restartPolicy: ExitCode, containers: [{name: tensorflow, image: tf}]}}}]\n",
		want: []string{`spec.tfReplicaSpec[0].template.spec.restartPolicy: Unsupported value: "ExitCode": supported values: "Always", "Never", "OnFailure"`},
	}, {
		name: "wrong types",
		spec: "  type: 7\n  tfReplicaSpec: {Worker: {}}\n",
		want: []string{
			`spec.tfReplicaSpec: Invalid value: {"Worker":{}}: must be a list`,
			`spec.type: Invalid value: 7: must be a string`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(doc(caicloudJob(tt.spec)), Options{})
			if err == nil {
				t.Fatal("no error")
			}
			var got []string
			for _, l := range strings.Split(err.Error(), "\n") {
				got = append(got, strings.TrimPrefix(l, "job.yaml: TFJob j: "))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// replicaShape is what TestCaicloudConversion checks of a replica spec.
type replicaShape struct {
	Replicas      int32
	RestartPolicy job.RestartPolicy
	Port          int32
	Args          []string
}

func TestCaicloudConversion(t *testing.T) {
	const clusterArgs = "[--worker_hosts=j-worker-0-x1y2z:2222, --ps_hosts=j-ps-0-a1b2c:2222, --job_name=worker, --task_index=0]"
	tests := []struct {
		name     string
		spec     string
		success  job.SuccessPolicy
		replicas map[job.ReplicaType]replicaShape
		warnings []string
	}{{
		name: "Local: one pod, whatever replicas says",
		spec: "  type: Training\n  tfReplicaSpec: [{tfReplicaType: Local, replicas: 3, template: {spec: {restartPolicy: Never, containers: [{name: tensorflow, image: tf, args: [--steps=10]}]}}}]\n",
		replicas: map[job.ReplicaType]replicaShape{
			job.Worker: {Replicas: 1, RestartPolicy: job.RestartNever, Port: 2222, Args: []string{"--steps=10"}},
		},
		warnings: []string{"job.yaml: TFJob j: spec.tfReplicaSpec[0].replicas is accepted but has no effect: a Local replica spec runs one pod, as the caicloud controller ran it"},
	}, {
		name:    "distributed: every worker decides, the pod default Always, port 2222",
		spec:    "  tfReplicaSpec:\n  - {tfReplicaType: Worker, replicas: 3, template: {spec: {restartPolicy: OnFailure, containers: [{name: tensorflow, image: tf, ports: [{name: tfjob-port, containerPort: 3333}]}]}}}\n  - {tfReplicaType: PS, template: " + caiPod + "}\n",
		success: job.SuccessAllWorkers,
		replicas: map[job.ReplicaType]replicaShape{
			job.Worker: {Replicas: 3, RestartPolicy: job.RestartOnFailure, Port: 2222},
			job.PS:     {Replicas: 1, RestartPolicy: job.RestartAlways, Port: 2222},
		},
		warnings: []string{argsNote},
	}, {
		name:    "the controller's flags, saved with the job, are removed; the user's stay",
		spec:    "  tfReplicaSpec:\n  - {tfReplicaType: Worker, template: {spec: {containers: [{name: tensorflow, image: tf, args: " + clusterArgs + "}]}}}\n  - {tfReplicaType: PS, template: {spec: {containers: [{name: tensorflow, image: tf, args: [--job_name=ps]}]}}}\n",
		success: job.SuccessAllWorkers,
		replicas: map[job.ReplicaType]replicaShape{
			job.Worker: {Replicas: 1, RestartPolicy: job.RestartAlways, Port: 2222},
			job.PS:     {Replicas: 1, RestartPolicy: job.RestartAlways, Port: 2222, Args: []string{"--job_name=ps"}},
		},
		warnings: []string{
			"job.yaml: TFJob j: spec.tfReplicaSpec[0].template.spec.containers[0].args: removed: the caicloud controller wrote these flags into the job; they name its services and one replica's index, and tfgen passes the cluster as TF_CONFIG",
			argsNote,
		},
	}, {
		name:    "fields the controller never read",
		spec:    "  dataDir: /d\n  modelDir: /m\n  logDir: /l\n  exportDir: /e\n  runtimeID: abcde\n  tfReplicaSpec: [{tfReplicaType: Worker, terminationPolicy: {chief: {tfReplicaName: Worker, tfReplicaIndex: 0}}, template: " + caiPod + "}]\n",
		success: job.SuccessAllWorkers,
		replicas: map[job.ReplicaType]replicaShape{
			job.Worker: {Replicas: 1, RestartPolicy: job.RestartAlways, Port: 2222},
		},
		warnings: []string{
			"job.yaml: TFJob j: spec.tfReplicaSpec[0].terminationPolicy is accepted but has no effect: the caicloud controller never read it: the job succeeds when its workers have, as it did there",
			argsNote,
			"job.yaml: TFJob j: spec.dataDir is accepted but has no effect: the caicloud controller never read it",
			"job.yaml: TFJob j: spec.modelDir is accepted but has no effect: the caicloud controller never read it",
			"job.yaml: TFJob j: spec.logDir is accepted but has no effect: the caicloud controller never read it",
			"job.yaml: TFJob j: spec.exportDir is accepted but has no effect: the caicloud controller never read it",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Decode(doc(caicloudJob(tt.spec)), Options{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.warnings, res.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if res.Job.SuccessPolicy != tt.success {
				t.Errorf("successPolicy %q, want %q", res.Job.SuccessPolicy, tt.success)
			}
			got := map[job.ReplicaType]replicaShape{}
			for ty, s := range res.Job.TFReplicaSpecs {
				got[ty] = replicaShape{Replicas: *s.Replicas, RestartPolicy: s.RestartPolicy, Port: *s.Port, Args: s.Template.Spec.Containers[0].Args}
			}
			if diff := cmp.Diff(tt.replicas, got); diff != "" {
				t.Errorf("replica specs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCaicloudAsKubeflow: a caicloud job converts to the Kubeflow v1 job
// that runs as it ran.
func TestCaicloudAsKubeflow(t *testing.T) {
	tests := []struct{ name, caicloud, kubeflow string }{{
		name:     "parameter servers and workers",
		caicloud: "  type: Training\n  tfReplicaSpec:\n  - {tfReplicaType: PS, replicas: 2, template: " + caiPod + "}\n  - {tfReplicaType: Worker, replicas: 4, template: " + pod + "}\n",
		kubeflow: "  successPolicy: AllWorkers\n  tfReplicaSpecs:\n    PS: {replicas: 2, restartPolicy: Always, template: " + caiPod + "}\n    Worker: {replicas: 4, restartPolicy: OnFailure, template: " + pod + "}\n",
	}, {
		name:     "Local",
		caicloud: "  tfReplicaSpec: [{tfReplicaType: Local, template: " + pod + "}]\n",
		kubeflow: "  tfReplicaSpecs: {Worker: {restartPolicy: OnFailure, template: " + pod + "}}\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Decode(doc(caicloudJob(tt.caicloud)), Options{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			want := decodeOne(t, "kubeflow.org/v1", "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: j}\nspec:\n"+tt.kubeflow)
			if diff := cmp.Diff(want, res.Job, ignoreSource); diff != "" {
				t.Errorf("(-kubeflow.org/v1 +kubeflow.caicloud.io/v1alpha1):\n%s", diff)
			}
		})
	}
}
