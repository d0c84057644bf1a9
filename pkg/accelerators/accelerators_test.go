package accelerators

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/job"
)

func TestParse(t *testing.T) {
	want := Config{"alpha.kubernetes.io/nvidia-gpu": {
		Volumes: []job.AcceleratorVolume{{Name: "nvidia-libs", MountPath: "/usr/local/nvidia/lib64", HostPath: "/home/kubernetes/bin/nvidia/lib"}},
		EnvVars: []job.EnvVar{{Name: "LD_LIBRARY_PATH", Value: "/usr/local/nvidia/lib64"}},
	}}
	seed := `accelerators:
  grpcServerFilePath: /opt/mlkube/grpc_tensorflow_server/grpc_tensorflow_server.py
  alpha.kubernetes.io/nvidia-gpu:
    volumes:
      - name: nvidia-libs
        mountPath: /usr/local/nvidia/lib64
        hostPath: /home/kubernetes/bin/nvidia/lib
    envVars:
      - name: LD_LIBRARY_PATH
        value: /usr/local/nvidia/lib64
`
	bare := strings.ReplaceAll(strings.TrimPrefix(seed, "accelerators:\n"), "\n  ", "\n")
	bare = strings.TrimPrefix(bare, "  ")
	for name, in := range map[string]string{"controller config": seed, "bare map": bare} {
		got, err := Parse([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	for _, bad := range []string{"nvidia.com/gpu:\n  volumes:\n  - name: x\n", "nvidia.com/gpu:\n  volumez: []\n", "[1]"} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%q): want an error", bad)
		}
	}
}

func TestPreset(t *testing.T) {
	c, err := Preset("gke")
	if err != nil {
		t.Fatal(err)
	}
	if len(c) != 2 || c["nvidia.com/gpu"].Volumes[0].HostPath != "/home/kubernetes/bin/nvidia/lib64" {
		t.Errorf("gke preset: %+v", c)
	}
	if _, err := Preset("aws"); err == nil || !strings.Contains(err.Error(), "azure or gke") {
		t.Errorf("unknown cloud: %v", err)
	}
}
