package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfgen/tfgen/internal/golden"
	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/job"
)

// cmdCase runs the real root command; its stdout is compared with golden
// and its stderr with golden+".stderr" (absent when stderr is empty).
type cmdCase struct {
	name    string
	args    []string
	stdin   string
	golden  string
	wantErr bool
}

// run executes the root command from the repository root, so that paths in
// arguments, messages and golden files read as a user would type them.
func run(t *testing.T, tc cmdCase) (stdout, stderr []byte) {
	t.Helper()
	t.Chdir(repoRoot(t))
	var out, errOut bytes.Buffer
	cmd := NewRootCmd(Streams{In: strings.NewReader(tc.stdin), Out: &out, ErrOut: &errOut})
	cmd.SetArgs(tc.args)
	err := cmd.Execute()
	code := Report(&errOut, err)
	if got := code != 0; got != tc.wantErr {
		t.Fatalf("tfgen %s: exit status %d, want error %v\nstderr:\n%s", strings.Join(tc.args, " "), code, tc.wantErr, errOut.String())
	}
	if tc.wantErr && out.Len() > 0 {
		t.Errorf("tfgen %s failed but wrote to stdout:\n%s", strings.Join(tc.args, " "), out.String())
	}
	return out.Bytes(), errOut.Bytes()
}

// repoRoot returns the repository root (tests start in pkg/cli).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		root, err = filepath.Abs(".")
		if err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func runCases(t *testing.T, cases []cmdCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut := run(t, tc)
			golden.Assert(t, tc.golden, out)
			golden.Assert(t, tc.golden+".stderr", errOut)
		})
	}
}

// TestExamples renders every example with default flags.
func TestExamples(t *testing.T) {
	files, err := filepath.Glob("../../examples/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	var cases []cmdCase
	for _, f := range files {
		base := strings.TrimSuffix(filepath.Base(f), ".yaml")
		cases = append(cases, cmdCase{name: base, args: []string{"render", "-f", "examples/" + base + ".yaml"}, golden: "testdata/" + base + ".golden.yaml"})
	}
	runCases(t, cases)
}

// TestRenderFlags covers the flags that change what is rendered.
func TestRenderFlags(t *testing.T) {
	render := func(example string, flags ...string) []string {
		return append([]string{"render", "-f", "examples/" + example + ".yaml"}, flags...)
	}
	runCases(t, []cmdCase{
		{name: "gpu gke preset", args: render("tfjob-gpu", "--cloud", "gke"), golden: "testdata/tfjob-gpu-gke.golden.yaml"},
		{name: "gpu accelerators file", args: render("tfjob-gpu", "--accelerators", "examples/config/accelerators.yaml"), golden: "testdata/tfjob-gpu-accelerators.golden.yaml"},
		{name: "mxnet gpu azure preset", args: render("mxjob-kubeflow-gpu", "--cloud", "azure"), golden: "testdata/mxjob-kubeflow-gpu-azure.golden.yaml"},
		{name: "volcano", args: render("tfjob-gang", "--gang-scheduler", "volcano"), golden: "testdata/tfjob-gang-volcano.golden.yaml"},
		{name: "scheduler-plugins", args: render("tfjob-gang", "--gang-scheduler", "scheduler-plugins"), golden: "testdata/tfjob-gang-scheduler-plugins.golden.yaml"},
		{name: "kueue", args: render("tfjob-gang", "--gang-scheduler", "kueue"), golden: "testdata/tfjob-gang-kueue.golden.yaml"},
		{name: "kubernetes", args: render("tfjob-gang", "--gang-scheduler", "kubernetes"), golden: "testdata/tfjob-gang-kubernetes.golden.yaml"},
		{name: "kueue, sidecar mode", args: []string{"render", "-f", "-"}, golden: "testdata/kueue-sidecar.golden.yaml",
			stdin: testjob.New("side").Edit(func(j *job.Job) { j.Labels = map[string]string{"kueue.x-k8s.io/queue-name": "q"} }).Replica(job.Worker, 2).String()},
		{name: "kubectl get -o yaml: a v1 List", args: []string{"render", "-f", "testdata/migrate/kubectl-get-tfjobs.yaml"}, golden: "testdata/migrate-kubectl-get-tfjobs.golden.yaml"},
		{name: "the user's TF_CONFIG, POD_NAME, MX_CONFIG", args: []string{"render", "-f", "testdata/kubeflow/own-env.yaml"}, golden: "testdata/kubeflow-own-env.golden.yaml"},
		{name: "image entrypoints wrap a sidecar job", args: render("tfjob-sidecar", "--image-entrypoints", "examples/config/image-entrypoints.yaml"),
			golden: "testdata/tfjob-sidecar-entrypoints.golden.yaml"},
		{name: "namespace, domain, image, evaluator", args: render("tfjob-mnist", "-n", "team-a", "--cluster-domain", "cluster.local",
			"--supervisor-image", "registry.example.com/tfsupervisor:v1", "--exclude-evaluator"), golden: "testdata/tfjob-mnist-settings.golden.yaml"},
		{name: "locality zone for a job without it", args: render("tfjob-mnist", "--locality", "zone"), golden: "testdata/tfjob-mnist-locality-zone.golden.yaml"},
		{name: "locality of the job's own, with the template's affinity", args: []string{"render", "-f", "testdata/locality/affinity.yaml", "--locality", "none"},
			golden: "testdata/locality-affinity.golden.yaml"},
		{name: "locality none for a DRAGON job", args: render("tfjob-dragon", "--locality", "none"), golden: "testdata/tfjob-dragon-locality-none.golden.yaml"},
		{name: "json", args: render("tfjob-mnist", "--format", "json"), golden: "testdata/tfjob-mnist.golden.json"},
		{name: "supervisor from an image volume", args: render("tfjob-mnist", "--supervisor-volume", "image"), golden: "testdata/tfjob-mnist-image-volume.golden.yaml"},
		{name: "each pod publishes its address", args: render("tfjob-mnist", "--endpoints", "pod"), golden: "testdata/tfjob-mnist-endpoints-pod.golden.yaml"},
		{name: "each sidecar-mode pod publishes its address", args: render("tfjob-sidecar", "--endpoints", "pod"), golden: "testdata/tfjob-sidecar-endpoints-pod.golden.yaml"},
		{name: "stdin", args: []string{"render", "-f", "-"}, stdin: testjob.New("stdin").Replica(job.Worker, 1, testjob.Command("python")).String(),
			golden: "testdata/stdin.golden.yaml"},
		{name: "all examples at once", args: []string{"render", "-f", "examples/", "--strict"}, golden: "testdata/all-examples.golden.yaml"},
	})
}

// TestOtherCommands covers env, values and version.
func TestOtherCommands(t *testing.T) {
	runCases(t, []cmdCase{
		{name: "env worker", args: []string{"env", "-f", "examples/tfjob-mnist.yaml", "--replica", "worker-1"}, golden: "testdata/env-tfjob-mnist-worker-1.golden.txt"},
		{name: "env namespace", args: []string{"env", "-f", "examples/tfjob-mnist.yaml", "--replica", "chief-0", "-n", "team-a", "--cluster-domain", "cluster.local"},
			golden: "testdata/env-tfjob-mnist-chief-0.golden.txt"},
		{name: "env sparse", args: []string{"env", "-f", "examples/tfjob-large.yaml", "--replica", "Worker-9999"}, golden: "testdata/env-tfjob-large-worker-9999.golden.txt"},
		{name: "env mxnet", args: []string{"env", "-f", "examples/mxjob-linear.yaml", "--replica", "worker-1"}, golden: "testdata/env-mxjob-linear-worker-1.golden.txt"},
		{name: "env out of range", args: []string{"env", "-f", "examples/tfjob-mnist.yaml", "--replica", "worker-3"}, golden: "testdata/env-out-of-range.golden.txt", wantErr: true},
		{name: "env two jobs", args: []string{"env", "-f", "examples/", "--replica", "worker-0"}, golden: "testdata/env-two-jobs.golden.txt", wantErr: true},
		{name: "values", args: []string{"values", "-f", "examples/t9k-mnist.yaml"}, golden: "testdata/values-t9k-mnist.golden.yaml"},
		{name: "values of one job", args: []string{"values", "-f", "examples/", "--job", "mx-linear-dist", "--cloud", "gke"}, golden: "testdata/values-mxjob-linear.golden.yaml"},
		{name: "version", args: []string{"version"}, golden: "testdata/version.golden.txt"},
	})
}

// TestErrors covers every error of issue 2: each problem of each document
// at once, exit status 1, nothing on stdout.
func TestErrors(t *testing.T) {
	files, err := filepath.Glob("../../testdata/errors/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no error cases: %v", err)
	}
	var cases []cmdCase
	for _, f := range files {
		base := strings.TrimSuffix(filepath.Base(f), ".yaml")
		cases = append(cases, cmdCase{name: base, args: []string{"render", "-f", "testdata/errors/" + base + ".yaml"}, golden: "testdata/errors/" + base + ".golden", wantErr: true})
	}
	cases = append(cases,
		cmdCase{name: "a directory with one bad job", args: []string{"render", "-f", "testdata/errors/dir"}, golden: "testdata/errors/dir.golden", wantErr: true},
		cmdCase{name: "image volume before 1.35", args: []string{"render", "-f", "examples/tfjob-mnist.yaml", "--supervisor-volume", "image", "--kube-version", "1.34"},
			golden: "testdata/errors/image-volume-kube-1.34.golden", wantErr: true},
		cmdCase{name: "sidecar mode before 1.35", args: []string{"render", "-f", "examples/tfjob-sidecar.yaml", "--kube-version", "1.34"}, golden: "testdata/errors/sidecar-kube-1.34.golden", wantErr: true},
		cmdCase{name: "namespace mismatch", args: []string{"render", "-f", "examples/tfjob-gang.yaml", "-n", "other"}, golden: "testdata/errors/namespace-mismatch.golden", wantErr: true},
		cmdCase{name: "dense TF_CONFIG too large", args: []string{"render", "-f", "testdata/errors/large/dense.yaml"}, golden: "testdata/errors/large-dense.golden", wantErr: true},
		cmdCase{name: "dense TF_CONFIG just too large", args: []string{"render", "-f", "testdata/errors/large/dense-3500.yaml"}, golden: "testdata/errors/large-dense-3500.golden", wantErr: true},
		cmdCase{name: "kueue without a queue", args: []string{"render", "-f", "examples/tfjob-mnist.yaml", "--gang-scheduler", "kueue"}, golden: "testdata/errors/kueue-no-queue.golden", wantErr: true},
		cmdCase{name: "bad flags", args: []string{"render", "-f", "examples/tfjob-mnist.yaml", "--kube-version", "latest"}, golden: "testdata/errors/bad-kube-version.golden", wantErr: true},
		cmdCase{name: "no input", args: []string{"render"}, golden: "testdata/errors/no-input.golden", wantErr: true},
		cmdCase{name: "missing file", args: []string{"render", "-f", "examples/nope.yaml"}, golden: "testdata/errors/missing-file.golden", wantErr: true},
		cmdCase{name: "strict", args: []string{"render", "--strict", "-f", "testdata/errors/strict/unknown-field.yaml"}, golden: "testdata/errors/strict.golden", wantErr: true},
		cmdCase{name: "the same file twice", args: []string{"render", "-f", "examples/tfjob-mnist.yaml", "-f", "examples/stream-with-config.yaml", "-f", "examples/tfjob-mnist.yaml"},
			golden: "testdata/errors/same-file-twice.golden", wantErr: true},
		cmdCase{name: "kueue queue that is no label value", args: []string{"render", "-f", "-", "--gang-scheduler", "kueue"},
			stdin: testjob.New("q").Replica(job.Worker, 1, testjob.Command("python")).
				Edit(func(j *job.Job) { j.RunPolicy.SchedulingPolicy = &job.SchedulingPolicy{Queue: "team a/main"} }).String(),
			golden: "testdata/errors/kueue-bad-queue.golden", wantErr: true},
	)
	runCases(t, cases)
}

// TestFlagsValidated: each flag is validated as the field it stands for,
// and a bad value is one line naming the flag.
func TestFlagsValidated(t *testing.T) {
	render := func(flags ...string) []string {
		return append([]string{"render", "-f", "examples/tfjob-mnist.yaml"}, flags...)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"namespace with a line break", render("-n", "team\n  namespace: kube-system"),
			`-n "team\n  namespace: kube-system": a lowercase RFC 1123 label must consist of`},
		{"namespace in capitals", render("-n", "Team_A"), `-n "Team_A": a lowercase RFC 1123 label`},
		{"namespace with a space", render("-n", "a b"), `-n "a b": a lowercase RFC 1123 label`},
		{"namespace for env", []string{"env", "-f", "examples/tfjob-mnist.yaml", "--replica", "worker-0", "-n", "a/b"}, `-n "a/b"`},
		{"cluster domain with a quote", render("--cluster-domain", `cluster.local","evil:1`), `--cluster-domain "cluster.local\",\"evil:1": a lowercase RFC 1123 subdomain`},
		{"cluster domain for env", []string{"env", "-f", "examples/tfjob-mnist.yaml", "--replica", "worker-0", "--cluster-domain", "$(X)"}, `--cluster-domain "$(X)"`},
		{"supervisor image with a space", render("--supervisor-image", "a b"), `--supervisor-image "a b": must be printable ASCII, with no white space`},
		{"supervisor image with a line break", render("--supervisor-image", "a\nb"), `--supervisor-image "a\nb": must be printable ASCII`},
		{"evaluator grace too long", render("--evaluator-grace", "3000000h"), `--evaluator-grace "3000000h": must be at most 2562047h (about 292 years`},
		{"evaluator grace negative", render("--evaluator-grace", "-1m"), `--evaluator-grace "-1m": must be a duration of 0 or more`},
		{"evaluator grace no duration", render("--evaluator-grace", "10"), `--evaluator-grace "10": must be a duration of 0 or more`},
		{"unknown locality", render("--locality", "rack"), `--locality "rack": want node, zone, none`},
		{"unknown supervisor volume", render("--supervisor-volume", "hostPath"), `--supervisor-volume "hostPath": want copy or image`},
		{"unknown endpoints keeper", render("--endpoints", "pods"), `--endpoints "pods": want controller or pod`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr := run(t, cmdCase{args: tc.args, wantErr: true})
			lines := strings.Split(strings.TrimSuffix(string(stderr), "\n"), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "tfgen: "+tc.want) {
				t.Errorf("stderr:\n%s\nwant one line starting %q", stderr, "tfgen: "+tc.want)
			}
		})
	}
}

// TestOutputDirUntouchedOnError checks that -o DIR is not touched when any
// document has a problem, and is replaced when all are fine.
func TestOutputDirUntouchedOnError(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "rendered")
	run(t, cmdCase{args: []string{"render", "-f", "examples/tfjob-mnist.yaml", "-o", out}})
	before := readDir(t, out)
	if len(before) != 14 {
		t.Fatalf("want 12 objects, a kustomization.yaml and tfgen's mark, got %v", keys(before))
	}
	run(t, cmdCase{args: []string{"render", "-f", "examples/tfjob-gpu.yaml", "-f", "testdata/errors/dir", "-o", out}, wantErr: true})
	if after := readDir(t, out); !equal(before, after) {
		t.Errorf("output directory changed after a failed render: %v", keys(after))
	}
	run(t, cmdCase{args: []string{"render", "-f", "examples/tfjob-gpu.yaml", "-o", out}})
	if after := readDir(t, out); equal(before, after) {
		t.Error("output directory not replaced")
	}
}

// TestDeterministic renders every example twice.
func TestDeterministic(t *testing.T) {
	tc := cmdCase{args: []string{"render", "-f", "examples/", "--cloud", "gke", "--gang-scheduler", "volcano"}}
	first, _ := run(t, tc)
	second, _ := run(t, tc)
	if !bytes.Equal(first, second) {
		t.Error("two renders of the same input differ")
	}
}

func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(b)
	}
	return files
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestPathsAsWritten: -f takes a path as written, whatever it holds but a
// comma (which separates paths, as kubectl's -f does).
func TestPathsAsWritten(t *testing.T) {
	job, err := os.ReadFile(filepath.Join(repoRoot(t), "examples", "tfjob-mnist.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{`a "quoted" job.yaml`, "a\nline break.yaml", `"b.yaml`, "c,d.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, name), job, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, _ := run(t, cmdCase{args: []string{"render", "-f", "examples/tfjob-mnist.yaml"}})
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"a double quote", []string{"-f", filepath.Join(dir, `a "quoted" job.yaml`)}},
		{"a double quote first", []string{"-f", filepath.Join(dir, `"b.yaml`)}},
		{"a line break", []string{"-f", filepath.Join(dir, "a\nline break.yaml")}},
		{"a comma, as an argument", []string{filepath.Join(dir, "c,d.yaml")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := run(t, cmdCase{args: append([]string{"render"}, tc.args...)})
			if !bytes.Equal(want, got) {
				t.Errorf("rendered %d bytes, want those of examples/tfjob-mnist.yaml (%d)", len(got), len(want))
			}
		})
	}
	// Commas separate paths: both jobs are read, and being the same job
	// they clash.
	_, stderr := run(t, cmdCase{args: []string{"render", "-f", "examples/tfjob-mnist.yaml," + filepath.Join(dir, `"b.yaml`)}, wantErr: true})
	if !strings.Contains(string(stderr), "the same name") {
		t.Errorf("two paths in one -f: stderr %s, want the two jobs' clash", stderr)
	}
}
