package helm

import (
	"strings"
	"testing"
)

// worker is a valid job's values; each case below breaks one thing.
const worker = `tfReplicaSpecs:
  Worker:
    replicas: 2
    template:
      spec:
        containers: [{name: tensorflow, image: "tf:1", command: [python]}]
`

// badValues are values Helm must refuse, each with the message it must give:
// the schema's (values.schema.json) or, for what a schema cannot say, the
// templates'.
var badValues = []struct {
	name, values, want string
}{
	{"replicas of the wrong type", strings.Replace(worker, "replicas: 2", `replicas: "2"`, 1),
		"- at '/tfReplicaSpecs/Worker/replicas': got string, want integer"},
	{"unknown replica type", strings.Replace(worker, "Worker:", "Trainer:", 1),
		"- at '/tfReplicaSpecs': additional properties 'Trainer' not allowed"},
	{"replica type in the wrong case", strings.Replace(worker, "Worker:", "worker:", 1),
		"- at '/tfReplicaSpecs': additional properties 'worker' not allowed"},
	{"MXNet type in a TensorFlow job", strings.Replace(worker, "Worker:", "Scheduler:", 1),
		"- at '/tfReplicaSpecs': additional properties 'Scheduler' not allowed"},
	{"unknown restart policy", strings.Replace(worker, "replicas: 2", "replicas: 2\n    restartPolicy: Sometimes", 1),
		"- at '/tfReplicaSpecs/Worker/restartPolicy': value must be one of 'Never', 'OnFailure', 'Always', 'ExitCode'"},
	{"negative replicas", strings.Replace(worker, "replicas: 2", "replicas: -1", 1),
		"- at '/tfReplicaSpecs/Worker/replicas': minimum: got -1, want 0"},
	{"two chiefs", strings.Replace(worker, "Worker:", "Chief:", 1),
		"- at '/tfReplicaSpecs/Chief/replicas': maximum: got 2, want 1"},
	{"no training container", strings.Replace(worker, "name: tensorflow", "name: main", 1),
		"- at '/tfReplicaSpecs/Worker/template/spec/containers/0/name': value must be 'tensorflow'"},
	{"no pod template", "tfReplicaSpecs:\n  Worker: {replicas: 1}\n",
		"- at '/tfReplicaSpecs/Worker': missing property 'template'"},
	{"misspelt field", strings.Replace(worker, "tfReplicaSpecs:", "tfReplicaSpec:", 1),
		"- at '': additional properties 'tfReplicaSpec' not allowed"},
	{"unknown clean-pod policy", worker + "runPolicy: {cleanPodPolicy: Never}\n",
		"- at '/runPolicy/cleanPodPolicy': value must be one of 'Running', 'All', 'None'"},
	{"deadline of the wrong type", worker + "runPolicy: {activeDeadlineSeconds: 1h}\n",
		"- at '/runPolicy/activeDeadlineSeconds': got string, want integer"},
	{"unknown locality", worker + "annotations: {tfgen.io/locality: rack}\n",
		"- at '/annotations/tfgen.io~1locality': value must be one of 'node', 'zone', 'none'"},
	{"unknown gang scheduler", worker + "scheduler: {gang: yunikorn}\n",
		"- at '/scheduler/gang': value must be one of '', 'volcano', 'scheduler-plugins', 'kueue', 'kubernetes'"},
	{"bad Kubernetes version", worker + "tfgen: {kubeVersion: latest}\n",
		"- at '/tfgen/kubeVersion': 'latest' does not match pattern"},
	{"Kubernetes version as a number", worker + "tfgen: {kubeVersion: 1.36}\n",
		"- at '/tfgen/kubeVersion': got number, want string"},
	{"unknown setting", worker + "tfgen: {cloud: gke}\n",
		"- at '/tfgen': additional properties 'cloud' not allowed"},
	{"TensorBoard without a log directory", worker + "tensorboard: {image: tb}\n",
		"- at '/tensorboard': missing property 'logDir'"},
	{"both frameworks", worker + "mxReplicaSpecs:\n  Worker: {template: {spec: {containers: [{name: mxnet, image: mx}]}}}\n",
		"a job has tfReplicaSpecs or mxReplicaSpecs, not both"},
	{"another job's name", worker + "name: other\n",
		`the values are job "other" but the release is named "j": name the release other, or remove name from the values`},
	{"another namespace", worker + "namespace: team-b\n",
		`the values are job "j" in namespace "team-b" but the release namespace is "team-a": install with -n team-b, or remove namespace from the values`},
	{"sidecar mode before Kubernetes 1.35", strings.Replace(worker, ", command: [python]", "", 1) + "tfgen: {kubeVersion: \"1.34\"}\n",
		`needs container restart rules (Kubernetes 1.35 or later), but the target is Kubernetes 1.34`},
	{"kueue without a queue", worker + "scheduler: {gang: kueue}\n",
		"gang scheduling with kueue needs runPolicy.schedulingPolicy.queue"},
}

// TestBadValues checks that Helm refuses bad values with a message that
// names the problem and where it is.
func TestBadValues(t *testing.T) {
	if r := helm(t).Run([]byte(worker), "template", "j", chartDir, "-n", "team-a", "-f", "-"); r.Err != nil {
		t.Fatalf("the valid values fail: %v\n%s", r.Err, r.Stderr)
	}
	for _, tc := range badValues {
		t.Run(tc.name, func(t *testing.T) {
			r := helm(t).Run([]byte(tc.values), "template", "j", chartDir, "-n", "team-a", "-f", "-")
			if r.Err == nil {
				t.Fatalf("helm template accepted:\n%s", tc.values)
			}
			if !strings.Contains(r.Stderr, tc.want) {
				t.Errorf("helm template failed without %q:\n%s", tc.want, r.Stderr)
			}
			if len(r.Stdout) > 0 {
				t.Errorf("helm template failed but wrote:\n%s", r.Stdout)
			}
		})
	}
}
