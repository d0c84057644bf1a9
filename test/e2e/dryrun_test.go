package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/tfgen/tfgen/internal/jobgen"
	"github.com/tfgen/tfgen/test/harness"
)

// Generated jobs the dry-run sends: TFGEN_DRYRUN_JOBS overrides the count,
// TFGEN_DRYRUN_SEED the seed (the same seed, the same jobs). With
// TFGEN_DRYRUN_ALL set, the test goes on past the first refusal and reports
// every one (to find what a new generator value lets through).
const (
	dryRunJobs = 5000
	dryRunSeed = 23
)

// source is where a set of objects came from, as a refusal names it.
type source struct {
	name string
	// job and flags are a generated job's document and render flags,
	// jobName its name.
	job     []byte
	flags   []string
	jobName string
}

func (s source) String() string {
	if s.job == nil {
		return s.name
	}
	return fmt.Sprintf("%s (tfgen render %s):\n%s", s.name, strings.Join(s.flags, " "), s.job)
}

// batch is what one source rendered to.
type batch struct {
	src  source
	objs []harness.Object
}

// TestDryRunAccepts: whatever tfgen renders, the API server accepts, and
// would store as it was sent. Every example, every golden output and
// thousands of generated jobs (internal/jobgen: valid and hostile values
// in the fields users write) that tfgen renders are created with
// server-side dry-run; the first object the server refuses, or answers
// without a field as it was sent (harness.Unkept), fails the test with
// its job and the refusal or the fields.
func TestDryRunAccepts(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	ns := harness.Namespace(t, c.cp.Client(), "dryrun", nil)
	d, err := harness.NewDryRunner(c.cp.RestConfig(), ns)
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	batches := fixedBatches(t)
	fixed := len(batches)
	n, seed := envInt(t, "TFGEN_DRYRUN_JOBS", dryRunJobs), uint64(envInt(t, "TFGEN_DRYRUN_SEED", dryRunSeed))
	gen := jobgen.New(seed)
	jobs := make([]jobgen.Job, n)
	for i := range jobs {
		jobs[i] = gen.Next()
	}
	generated := renderGenerated(t, jobs, seed)
	batches = append(batches, generated...)
	refused := n - len(generated)
	rendered := time.Since(began)
	all := os.Getenv("TFGEN_DRYRUN_ALL") != ""
	sent, refusals, err := send(t.Context(), d, batches, all)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refusals {
		t.Error(r)
	}
	t.Logf("%d examples and golden files, %d generated jobs (seed %d; tfgen refused %d of them): %d distinct objects sent in %v (rendering %v)",
		fixed, len(batches)-fixed, seed, refused, sent, time.Since(began).Round(time.Millisecond), rendered.Round(time.Millisecond))
	if len(generated) < n/4 {
		t.Errorf("tfgen rendered only %d of %d generated jobs: the generator tests too little", len(generated), n)
	}
}

// fixedBatches are every example, rendered now, and every golden output.
func fixedBatches(t *testing.T) []batch {
	t.Helper()
	root := filepath.Join("..", "..")
	var out []batch
	examples, _ := filepath.Glob(filepath.Join(root, "examples", "*.yaml"))
	for _, path := range examples {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		objs, ok := renderJob(t, data, nil)
		if !ok {
			t.Fatalf("%s does not render", path)
		}
		out = append(out, batch{src: source{name: "example " + filepath.Base(path)}, objs: objs})
	}
	goldens, _ := filepath.Glob(filepath.Join(root, "testdata", "*.golden.*"))
	for _, path := range goldens {
		if !strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".json") {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		objs, ok, err := harness.DecodeObjects(data)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if ok {
			out = append(out, batch{src: source{name: "golden " + filepath.Base(path)}, objs: objs})
		}
	}
	if len(examples) == 0 || len(out) == len(examples) {
		t.Fatalf("found %d examples and %d golden outputs", len(examples), len(out)-len(examples))
	}
	return out
}

// problemOf matches a problem tfgen reports about a job, capturing the
// job's name: "<stdin>: TFJob job-12: spec...".
var problemOf = regexp.MustCompile(`(?m)^<stdin>: \S+ ([^:\s]+): `)

// renderGenerated renders the generated jobs as a user renders a stream
// of them, one tfgen render per set of flags: a first render names the
// jobs tfgen refuses, a second renders the others (tfgen writes nothing
// while any job has a problem). Each job's objects are told apart by
// their app.kubernetes.io/instance label, the job's name, which the
// generator makes unique.
func renderGenerated(t *testing.T, jobs []jobgen.Job, seed uint64) []batch {
	t.Helper()
	groups := map[string][]int{}
	var keys []string
	for i, j := range jobs {
		k := strings.Join(j.Flags, " ")
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], i)
	}
	byName := map[string]int{}
	var out []batch
	for _, k := range keys {
		idx := groups[k]
		for pass := 0; ; pass++ {
			var stream bytes.Buffer
			for _, i := range idx {
				stream.WriteString("---\n")
				stream.Write(jobs[i].YAML)
			}
			objs, stderr, ok := render(t, stream.Bytes(), jobs[idx[0]].Flags)
			if ok {
				for _, i := range idx {
					byName[jobName(t, jobs[i].YAML)] = i
				}
				perJob := map[int][]harness.Object{}
				for _, o := range objs {
					meta, _ := o["metadata"].(harness.Object)
					labels, _ := meta["labels"].(harness.Object)
					name, _ := labels["app.kubernetes.io/instance"].(string)
					i, found := byName[name]
					if !found {
						t.Fatalf("an object of no generated job: %v", meta)
					}
					perJob[i] = append(perJob[i], o)
				}
				for _, i := range idx {
					out = append(out, batch{src: source{name: fmt.Sprintf("generated job %d of seed %d", i+1, seed), job: jobs[i].YAML,
						flags: jobs[i].Flags, jobName: jobName(t, jobs[i].YAML)}, objs: perJob[i]})
				}
				break
			}
			refused := map[string]bool{}
			for _, m := range problemOf.FindAllStringSubmatch(stderr, -1) {
				refused[m[1]] = true
			}
			if len(refused) == 0 || pass == 2 {
				t.Fatalf("tfgen render %s: problems of no job, or left after removing their jobs:\n%s", k, stderr)
			}
			kept := idx[:0:0]
			for _, i := range idx {
				if !refused[jobName(t, jobs[i].YAML)] {
					kept = append(kept, i)
				}
			}
			if idx = kept; len(idx) == 0 {
				break
			}
		}
	}
	return out
}

// jobName reads a generated job's metadata.name.
func jobName(t *testing.T, doc []byte) string {
	t.Helper()
	var j struct {
		Metadata struct{ Name string }
	}
	if err := yaml.Unmarshal(doc, &j); err != nil || j.Metadata.Name == "" {
		t.Fatalf("a generated job without a name (%v):\n%s", err, doc)
	}
	return j.Metadata.Name
}

// renderJob renders doc with tfgen's own command, in this process: the
// objects, or false when tfgen refuses it.
func renderJob(t *testing.T, doc []byte, flags []string) ([]harness.Object, bool) {
	t.Helper()
	objs, _, ok := render(t, doc, flags)
	return objs, ok
}

// render runs tfgen render on a stream of documents in this process (as
// fast as rendering gets): the objects and stderr, and whether tfgen
// rendered them.
func render(t *testing.T, stream []byte, flags []string) ([]harness.Object, string, bool) {
	t.Helper()
	objs, stderr, ok, err := harness.Render(stream, flags...)
	if err != nil {
		t.Fatal(err)
	}
	return objs, stderr, ok
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("$%s=%q: want a whole number", name, v)
	}
	return n
}
