package job

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestSetDefaults(t *testing.T) {
	j := &Job{TFReplicaSpecs: map[ReplicaType]*ReplicaSpec{
		Worker: {Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Image: "i"}}}}},
		PS: {RestartPolicy: RestartOnFailure, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "tensorflow", Ports: []corev1.ContainerPort{{Name: "tfjob-port", ContainerPort: 3000}}}}}}},
	}}
	SetDefaults(j)
	want := &Job{
		TFReplicaSpecs: map[ReplicaType]*ReplicaSpec{
			Worker: {Replicas: ptr(int32(1)), RestartPolicy: RestartNever, Port: ptr(int32(2222)),
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "tensorflow", Image: "i"}}}}},
			PS: {Replicas: ptr(int32(1)), RestartPolicy: RestartOnFailure, Port: ptr(int32(3000)),
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{
					{Name: "tensorflow", Ports: []corev1.ContainerPort{{Name: "tfjob-port", ContainerPort: 3000}}}}}}},
		},
		RunPolicy: RunPolicy{CleanPodPolicy: CleanRunning},
	}
	if diff := cmp.Diff(want, j); diff != "" {
		t.Errorf("SetDefaults (-want +got):\n%s", diff)
	}

	m := &Job{MXReplicaSpecs: map[ReplicaType]*ReplicaSpec{Scheduler: {}}}
	SetDefaults(m)
	if m.JobMode != "dist" || *m.MXReplicaSpecs[Scheduler].Port != DefaultMXPort {
		t.Errorf("MXNet defaults: jobMode %q port %d", m.JobMode, *m.MXReplicaSpecs[Scheduler].Port)
	}
}

func TestFieldPaths(t *testing.T) {
	j := &Job{Source: Source{Paths: Paths{
		RunPolicy: field.NewPath("spec"),
		Fields: map[string]*field.Path{
			"minInstances":             field.NewPath("spec", "min-instances"),
			"runPolicy.cleanPodPolicy": field.NewPath("spec", "runPolicy", "cleanUpPolicy"),
			"Worker.port":              field.NewPath("spec", "replicaSpecs").Index(1).Child("tfPort"),
		},
	}}}
	for _, c := range []struct{ got, want string }{
		{j.SpecFieldPath("minInstances").String(), "spec.min-instances"},
		{j.SpecFieldPath("successPolicy").String(), "spec.successPolicy"},
		{j.RunPolicyFieldPath("cleanPodPolicy").String(), "spec.runPolicy.cleanUpPolicy"},
		{j.RunPolicyFieldPath("backoffLimit").String(), "spec.backoffLimit"},
		{j.ReplicaFieldPath(Worker, "port").String(), "spec.replicaSpecs[1].tfPort"},
		{j.ReplicaFieldPath(PS, "replicas").String(), "spec.tfReplicaSpecs[PS].replicas"},
		{j.ReplicasPath().String(), "spec.tfReplicaSpecs"},
	} {
		if c.got != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
}
