package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/manifest"
)

// fuzzJobs are a job in wrap mode and one in sidecar mode, two replica
// types each, in no namespace.
var fuzzJobs = testjob.Stream(
	testjob.New("wrap").Replica(job.PS, 1, testjob.Command("python")).Replica(job.Worker, 2, testjob.Command("python")),
	testjob.New("side").Replica(job.PS, 1).Replica(job.Worker, 2))

// FuzzRenderFlags renders with arbitrary -n, --cluster-domain and
// --supervisor-image. A value is refused (exit 1, one line, nothing on
// stdout) or reaches the output only as data: every object lands in that
// namespace, every tfgen container runs that image, every replica address
// ends in that domain, and the objects are the same sixteen.
func FuzzRenderFlags(f *testing.F) {
	f.Add("team-a", "cluster.local", "ghcr.io/tfgen/tfsupervisor:v1")
	f.Add("team\n  namespace: kube-system", `local","evil:1`, "a b")
	f.Add("Team_A", "$(POD_NAME)", "img\"}]")
	f.Add("", "", "x")
	f.Fuzz(func(t *testing.T, ns, domain, image string) {
		var out, errOut bytes.Buffer
		cmd := NewRootCmd(Streams{In: strings.NewReader(fuzzJobs), Out: &out, ErrOut: &errOut})
		cmd.SetArgs([]string{"render", "-f", "-", "-n", ns, "--cluster-domain", domain, "--supervisor-image", image})
		if code := Report(&errOut, cmd.Execute()); code != 0 {
			if out.Len() > 0 || strings.Count(errOut.String(), "\n") != 1 {
				t.Fatalf("refused with stdout %q and stderr %q", out.String(), errOut.String())
			}
			return
		}
		docs := manifest.SplitDocuments(out.Bytes())
		if len(docs) != 20 {
			t.Fatalf("%d objects, want 20", len(docs))
		}
		for _, d := range docs {
			o, err := manifest.Parse(d)
			if err != nil {
				t.Fatal(err)
			}
			if o.Namespace() != ns {
				t.Fatalf("%s in namespace %q, want %q", o, o.Namespace(), ns)
			}
			if o.Kind() == "StatefulSet" {
				checkPod(t, o, domain, image)
			}
		}
	})
}

// checkPod checks a StatefulSet's tfgen containers' image, its
// --cluster-domain flag and every address of a sidecar's TF_CONFIG.
func checkPod(t *testing.T, sts manifest.Object, domain, image string) {
	t.Helper()
	spec := sts["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	for _, list := range []string{"initContainers", "containers"} {
		containers, _ := spec[list].([]any) // the keeper's pod has no init containers
		for _, c := range containers {
			c := c.(map[string]any)
			if n := c["name"]; (n == "tfgen-install" || n == "tfsupervisor") && c["image"] != image {
				t.Fatalf("%s: container %s image %q, want %q", sts, n, c["image"], image)
			}
			args, _ := c["command"].([]any)
			for i, a := range args {
				if a == "--cluster-domain" && args[i+1] != domain {
					t.Fatalf("%s: --cluster-domain %q, want %q", sts, args[i+1], domain)
				}
			}
			env, _ := c["env"].([]any)
			for _, e := range env {
				e := e.(map[string]any)
				if e["name"] != "TF_CONFIG" {
					continue
				}
				v := strings.NewReplacer("$(TFGEN_POD_INDEX)", "0", "$(TFGEN_POD_NAMESPACE)", "ns").Replace(e["value"].(string))
				var cfg struct {
					Cluster map[string]any `json:"cluster"`
				}
				if err := json.Unmarshal([]byte(v), &cfg); err != nil {
					t.Fatalf("%s: TF_CONFIG %q: %v", sts, v, err)
				}
				suffix := ".ns.svc"
				if domain != "" {
					suffix += "." + domain
				}
				n := 0
				for _, addrs := range cfg.Cluster {
					for _, a := range addrs.([]any) {
						host, _, _ := strings.Cut(a.(string), ":")
						if !strings.HasSuffix(host, suffix) {
							t.Fatalf("%s: address %q does not end in %q", sts, a, suffix)
						}
						n++
					}
				}
				if n != 3 {
					t.Fatalf("%s: TF_CONFIG lists %d addresses, want 3: %s", sts, n, v)
				}
			}
		}
	}
}
