package versions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// job is an example rendered with flags; tfgen renders it for the
// minors from since on and refuses it, naming the minor, before.
type job struct {
	example string   // file name under examples/
	flags   []string // render flags besides --kube-version; paths from the repository root
	since   string   // "" is every minor
}

func (j job) String() string {
	return strings.Join(append([]string{strings.TrimSuffix(j.example, ".yaml")}, j.flags...), " ")
}

// since are the examples tfgen refuses before a minor: sidecar mode needs
// container restart rules (1.35).
var since = map[string]string{"tfjob-sidecar.yaml": "1.35"}

// variants are render settings whose objects differ by minor, on the
// examples that show them: the supervisor's image volume (1.35, beta; the
// default from 1.36) or copy, sidecar mode wrapped by an image's
// entrypoint, each gang scheduler (the Workload API's from 1.37), the
// pods' own EndpointSlices, locality and the job-wide restart scope.
var variants = []job{
	{"tfjob-mnist.yaml", []string{"--supervisor-volume", "copy"}, ""},
	{"tfjob-mnist.yaml", []string{"--supervisor-volume", "image"}, "1.35"},
	{"tfjob-sidecar.yaml", []string{"--supervisor-volume", "copy"}, "1.35"},
	{"tfjob-sidecar.yaml", []string{"--image-entrypoints", "examples/config/image-entrypoints.yaml"}, ""},
	{"tfjob-gang.yaml", []string{"--gang-scheduler", "volcano"}, ""},
	{"tfjob-gang.yaml", []string{"--gang-scheduler", "scheduler-plugins"}, ""},
	{"tfjob-gang.yaml", []string{"--gang-scheduler", "kueue"}, ""},
	{"tfjob-gang.yaml", []string{"--gang-scheduler", "kubernetes"}, "1.37"},
	{"tfjob-mnist.yaml", []string{"--endpoints", "pod"}, ""},
	{"tfjob-mnist.yaml", []string{"--locality", "zone"}, ""},
	{"local-demo.yaml", []string{"--restart-scope", "Job"}, ""},
}

// jobs are every example with the default settings, and the variants.
func jobs(t *testing.T) []job {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "examples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	var out []job
	for _, f := range files {
		out = append(out, job{example: filepath.Base(f), since: since[filepath.Base(f)]})
	}
	return append(out, variants...)
}

// TestRenderForEachMinorComesBackWhole: every example, and the variants,
// rendered for each supported minor (tfgen render --kube-version) is
// accepted by a real API server of that minor, which would store every
// field as it was sent; a job tfgen refuses for a minor is refused with a
// message naming it.
func TestRenderForEachMinorComesBackWhole(t *testing.T) {
	t.Parallel()
	for _, minor := range controlplane.KubeVersions {
		t.Run(minor, func(t *testing.T) {
			t.Parallel()
			s := apiServer(t, minor)
			for _, j := range jobs(t) {
				t.Run(j.String(), func(t *testing.T) {
					doc, err := os.ReadFile(filepath.Join(root, "examples", j.example))
					if err != nil {
						t.Fatal(err)
					}
					objs, stderr, ok, err := harness.Render(doc, renderFlags(j.flags, minor)...)
					if err != nil {
						t.Fatal(err)
					}
					if before(minor, j.since) {
						refused(t, "tfgen render "+j.String(), minor, ok, stderr)
						return
					}
					if !ok {
						t.Fatalf("tfgen render %s --kube-version %s refused it:\n%s", j, minor, stderr)
					}
					s.checkKept(t, "tfgen render "+j.String()+" --kube-version "+minor, objs)
				})
			}
		})
	}
}

// renderFlags are flags with --kube-version minor, their paths made the
// repository root's.
func renderFlags(flags []string, minor string) []string {
	out := []string{"--kube-version", minor}
	for i, f := range flags {
		if i > 0 && (flags[i-1] == "--image-entrypoints" || flags[i-1] == "--accelerators") {
			f = filepath.Join(root, f)
		}
		out = append(out, f)
	}
	return out
}

// refused checks that what was refused for minor (ok false) with a
// message naming minor.
func refused(t *testing.T, what, minor string, ok bool, stderr string) {
	t.Helper()
	if ok {
		t.Fatalf("%s for Kubernetes %s rendered, want it refused", what, minor)
	}
	if !strings.Contains(stderr, "Kubernetes "+minor) {
		t.Errorf("%s for Kubernetes %s was refused with a message not naming it:\n%s", what, minor, stderr)
	}
}

// before reports whether minor a is older than b ("" is older than none).
func before(a, b string) bool {
	return b != "" && utilversion.MustParseGeneric(a).LessThan(utilversion.MustParseGeneric(b))
}
