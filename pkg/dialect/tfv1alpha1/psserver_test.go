package tfv1alpha1

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTF is a tensorflow module that records how the server was started.
const fakeTF = `import json, sys
def _server(cluster, job_name=None, task_index=None, protocol=None):
    class S(object):
        def join(self):
            sys.stdout.write(json.dumps({"cluster": cluster.spec, "job": job_name, "index": task_index, "protocol": protocol}, sort_keys=True))
    return S()
class ClusterSpec(object):
    def __init__(self, spec):
        self.spec = dict((k, dict((str(i), a) for i, a in v.items()) if isinstance(v, dict) else v) for k, v in spec.items())
class _NS(object):
    pass
train = _NS()
train.ClusterSpec = ClusterSpec
`

// TestPSServerScript runs the default parameter server's script against a
// fake TensorFlow 1.x (tf.train.Server) and 2.x (tf.distribute.Server).
func TestPSServerScript(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	for _, v := range []struct{ name, extra string }{
		{"tf1", "train.Server = _server\n"},
		{"tf2", "distribute = _NS()\ndistribute.Server = _server\n"},
	} {
		t.Run(v.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "tensorflow")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "__init__.py"), []byte(fakeTF+v.extra), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct{ tfConfig, want string }{{
				tfConfig: `{"cluster":{"ps":["j-ps-0.j-ps.ns.svc:2222"],"worker":["j-worker-0.j-worker.ns.svc:2222"]},"task":{"type":"ps","index":0},"environment":"cloud"}`,
				want:     `{"cluster": {"ps": ["j-ps-0.j-ps.ns.svc:2222"], "worker": ["j-worker-0.j-worker.ns.svc:2222"]}, "index": 0, "job": "ps", "protocol": "grpc"}`,
			}, {
				tfConfig: `{"cluster":{"ps":["a:1","b:1"],"worker":{"3":"w3:1"}},"task":{"type":"ps","index":1}}`,
				want:     `{"cluster": {"ps": ["a:1", "b:1"], "worker": {"3": "w3:1"}}, "index": 1, "job": "ps", "protocol": "grpc"}`,
			}} {
				c0 := DefaultPSContainer("img", 2222)
				cmd := exec.Command(python, c0.Command[1:]...)
				cmd.Env = append(os.Environ(), "PYTHONPATH="+filepath.Dir(dir), "TF_CONFIG="+c.tfConfig)
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%v: %s", err, out)
				}
				if got := strings.TrimSpace(string(out)); got != c.want {
					t.Errorf("server started with\n got %s\nwant %s", got, c.want)
				}
			}
		})
	}
}

func TestDefaultPSContainer(t *testing.T) {
	c := DefaultPSContainer("tensorflow/tensorflow:1.3.0", 2223)
	if c.Name != "tensorflow" || c.Command[0] != "python" || c.Ports[0].Name != "tfjob-port" || c.Ports[0].ContainerPort != 2223 {
		t.Errorf("unexpected container %+v", c)
	}
}
