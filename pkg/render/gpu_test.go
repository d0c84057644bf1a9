package render

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/tfgen/tfgen/pkg/job"
)

// TestAcceleratorsOnce: a container asking for two resources that share
// an accelerator's volumes and variables (a cloud preset's
// nvidia.com/gpu and alpha.kubernetes.io/nvidia-gpu) gets each mount and
// variable once, and one of its own at a path or name keeps it: the API
// server refuses two mounts at one path.
func TestAcceleratorsOnce(t *testing.T) {
	a := job.Accelerator{Volumes: []job.AcceleratorVolume{{Name: "nvidia-libraries", HostPath: "/home/kubernetes/bin/nvidia/lib64", MountPath: "/usr/local/nvidia/lib64"},
		{Name: "nvidia-tools", HostPath: "/home/kubernetes/bin/nvidia/bin", MountPath: "/usr/local/bin/nvidia"}},
		EnvVars: []job.EnvVar{{Name: "LD_LIBRARY_PATH", Value: "/usr/local/nvidia/lib64"}, {Name: "NVIDIA_VISIBLE", Value: "all"}}}
	s := settings()
	s.Accelerators = map[string]job.Accelerator{"nvidia.com/gpu": a, "alpha.kubernetes.io/nvidia-gpu": a}
	j := mnist()
	c := &j.TFReplicaSpecs[job.Worker].Template.Spec.Containers[0]
	c.Resources.Limits = corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1"), "alpha.kubernetes.io/nvidia-gpu": resource.MustParse("1")}
	c.Env = []corev1.EnvVar{{Name: "NVIDIA_VISIBLE", Value: "0"}}
	c.VolumeMounts = []corev1.VolumeMount{{Name: "tools", MountPath: "/usr/local/bin/nvidia"}}
	j.TFReplicaSpecs[job.Worker].Template.Spec.Volumes = []corev1.Volume{{Name: "tools", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	objs, err := newRenderer(t).Render(j, s, newest)
	if err != nil {
		t.Fatal(err)
	}
	tc := podSpec(statefulSet(t, objs, "mnist-worker"))["containers"].([]any)[0].(map[string]any)
	var mounts, env []string
	for _, m := range tc["volumeMounts"].([]any) {
		mounts = append(mounts, m.(map[string]any)["mountPath"].(string))
	}
	for _, e := range tc["env"].([]any) {
		e := e.(map[string]any)
		if v, ok := e["value"].(string); ok {
			env = append(env, e["name"].(string)+"="+v)
		}
	}
	if diff := cmp.Diff([]string{"/usr/local/bin/nvidia", "/tfgen/bin", "/usr/local/nvidia/lib64", "/tfgen/run"}, mounts); diff != "" {
		t.Errorf("mounts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"NVIDIA_VISIBLE=0", "LD_LIBRARY_PATH=/usr/local/nvidia/lib64"}, env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
}
