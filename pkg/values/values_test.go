package values

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/job"
)

func ptr[T any](v T) *T { return &v }

// testJob has a sidecar before the training container in every pod.
func testJob() *job.Job {
	sidecar := testjob.Pod(func(p *corev1.PodSpec) {
		p.Containers = append([]corev1.Container{{Name: "sidecar", Image: "s"}}, p.Containers...)
	})
	return testjob.New("j").DynamicWorkers().
		Replica(job.Worker, 3, sidecar, testjob.Image("t"), testjob.Command("python")).
		Replica(job.PS, 2, sidecar, testjob.Image("t")).
		Replica(job.Chief, 1, sidecar, testjob.Image("t"), testjob.Command("python")).
		Job()
}

func TestBuild(t *testing.T) {
	v, err := Build(testJob(), job.Settings{SupervisorImage: "img", KubeVersion: "1.37"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"supervisorImage": "img", "kubeVersion": "1.37"}, v["tfgen"]); diff != "" {
		t.Errorf("tfgen (-want +got):\n%s", diff)
	}
	// No kubeVersion: the values follow the cluster's.
	v, err = Build(testJob(), job.Settings{SupervisorImage: "img"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"supervisorImage": "img"}, v["tfgen"]); diff != "" {
		t.Errorf("tfgen without kubeVersion (-want +got):\n%s", diff)
	}
	if v["name"] != "j" || v["enableDynamicWorker"] != true || v["tfReplicaSpecs"].(map[string]any)["Worker"].(map[string]any)["replicas"] != 3.0 {
		t.Errorf("values: %v", v)
	}
}

func TestLayoutAndModes(t *testing.T) {
	j := testJob()
	j.TFReplicaSpecs[job.PS].Port = ptr(int32(3000))
	got := Layout(j, job.Settings{ClusterDomain: "cluster.local"})
	want := &cluster.Layout{Job: "j", Framework: cluster.TensorFlow, ClusterDomain: "cluster.local", Sparse: true, Roles: []cluster.Role{
		{Type: "chief", Replicas: 1, Port: 2222}, {Type: "ps", Replicas: 2, Port: 3000}, {Type: "worker", Replicas: 3, Port: 2222}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Layout (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]job.ReplicaType{job.PS}, SidecarReplicas(j)); diff != "" {
		t.Errorf("SidecarReplicas (-want +got):\n%s", diff)
	}
	if i := TrainingContainer(job.TensorFlow, &j.TFReplicaSpecs[job.PS].Template.Spec); i != 1 {
		t.Errorf("TrainingContainer = %d, want the one named tensorflow", i)
	}
	if i := TrainingContainer(job.MXNet, &j.TFReplicaSpecs[job.PS].Template.Spec); i != 0 {
		t.Errorf("TrainingContainer = %d, want the first when none is named mxnet", i)
	}
}
