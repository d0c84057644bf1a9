package e2e

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tfgen/tfgen/test/harness"
)

// object is one Kubernetes object as plain data.
type object = map[string]any

// relocate moves every object (and the ServiceAccount subjects of
// RoleBindings) from its namespace to to(namespace), where "" is the
// namespace of objects that name none. When no object names one, they are
// left so, for kubectl apply -n; it returns whether it did so.
func relocate(objs []object, to func(string) string) (bare bool) {
	bare = true
	for _, o := range objs {
		if meta, _ := o["metadata"].(object); meta["namespace"] != nil {
			bare = false
		}
	}
	for _, o := range objs {
		meta, _ := o["metadata"].(object)
		ns, _ := meta["namespace"].(string)
		if !bare {
			meta["namespace"] = to(ns)
		}
		if o["kind"] == "RoleBinding" {
			subjects, _ := o["subjects"].([]any)
			for _, s := range subjects {
				if s, ok := s.(object); ok && s["namespace"] != nil {
					s["namespace"] = to(s["namespace"].(string))
				}
			}
		}
	}
	return bare
}

// manifestCase is one set of rendered manifests to apply.
type manifestCase struct {
	name string
	data []byte
}

// manifestCases are the golden outputs (testdata/*.golden.{yaml,json})
// and every example rendered now, less what another case already applies:
// all-examples.golden.yaml when each of its objects is in another golden
// file, and an example whose rendering (with the goldens' supervisor
// image) is byte for byte its golden file.
func manifestCases(t *testing.T) []manifestCase {
	t.Helper()
	root := filepath.Join("..", "..")
	goldens, _ := filepath.Glob(filepath.Join(root, "testdata", "*.golden.yaml"))
	jsons, _ := filepath.Glob(filepath.Join(root, "testdata", "*.golden.json"))
	examples, _ := filepath.Glob(filepath.Join(root, "examples", "*.yaml"))
	if len(goldens) == 0 || len(examples) == 0 {
		t.Fatalf("found %d golden files and %d examples", len(goldens), len(examples))
	}
	var cases []manifestCase
	read := func(path string) []byte {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	const union = "all-examples.golden.yaml"
	seen := map[string]bool{} // every object of the golden files but the union
	for _, path := range append(goldens, jsons...) {
		data := read(path)
		if filepath.Base(path) != union {
			cases = append(cases, manifestCase{"golden/" + filepath.Base(path), data})
			objs, _, _ := harness.DecodeObjects(data)
			for _, o := range objs {
				b, _ := json.Marshal(o)
				seen[string(b)] = true
			}
		}
	}
	all := read(filepath.Join(root, "testdata", union))
	objs, _, err := harness.DecodeObjects(all)
	if err != nil {
		t.Fatal(err)
	}
	covered := len(objs) > 0
	for _, o := range objs {
		b, _ := json.Marshal(o)
		covered = covered && seen[string(b)]
	}
	if covered {
		t.Logf("%s: its %d objects are all in other golden files", union, len(objs))
	} else {
		cases = append(cases, manifestCase{"golden/" + union, all})
	}
	for _, path := range examples {
		out := bins.tfgen.Must(t, nil, "render", "--supervisor-image", supervisorRepo+":dev", "-f", path)
		golden := filepath.Join(root, "testdata", strings.TrimSuffix(filepath.Base(path), ".yaml")+".golden.yaml")
		if g, err := os.ReadFile(golden); err == nil && bytes.Equal(g, out) {
			continue // the golden case applies the same bytes
		}
		cases = append(cases, manifestCase{"example/" + filepath.Base(path), out})
	}
	return cases
}

// TestManifestsApply: every golden output and every example, rendered,
// passes server-side dry-run and a real apply into fresh namespaces;
// applying again changes nothing and kubectl diff sees no drift.
func TestManifestsApply(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	limit := make(chan struct{}, 4) // kubectl is CPU-hungry: 4 at a time
	for _, tc := range manifestCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			objs, ok, err := harness.DecodeObjects(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				t.Skip("not Kubernetes objects (Helm values)")
			}
			limit <- struct{}{}
			defer func() { <-limit }()
			c.checkApply(t, objs)
		})
	}
}

// checkApply applies objs into fresh namespaces (one per namespace they
// name, plus one for those that name none) where no pod may start.
func (c *cluster) checkApply(t *testing.T, objs []object) {
	namespaces := map[string]string{"": harness.Namespace(t, c.cp.Client(), "apply", nil)}
	bare := relocate(objs, func(ns string) string {
		if namespaces[ns] == "" {
			namespaces[ns] = harness.Namespace(t, c.cp.Client(), "apply-"+ns, nil)
		}
		return namespaces[ns]
	})
	var nsFlag []string
	if bare {
		nsFlag = []string{"-n", namespaces[""]}
	}
	for _, ns := range namespaces {
		c.noPods(t, ns)
	}
	data, err := json.Marshal(object{"apiVersion": "v1", "kind": "List", "items": objs})
	if err != nil {
		t.Fatal(err)
	}
	apply := func(extra ...string) harness.Result {
		t.Helper()
		r := bins.kubectl.Must(t, c.cp.Kubeconfig(), data, append(append([]string{"apply", "-f", "-"}, nsFlag...), extra...)...)
		if strings.Contains(r.Stderr, "Warning") {
			t.Errorf("kubectl apply %s warns:\n%s", strings.Join(extra, " "), r.Stderr)
		}
		return r
	}
	apply("--dry-run=server")
	created := apply()
	if n := strings.Count(created.Stdout, " created\n"); n != len(objs) {
		t.Errorf("apply created %d objects, want %d:\n%s", n, len(objs), created.Stdout)
	}
	again := apply()
	for _, line := range strings.Split(strings.TrimSpace(again.Stdout), "\n") {
		if !strings.HasSuffix(line, " unchanged") {
			t.Errorf("applying again changed something: %s", line)
		}
	}
	r := bins.kubectl.Run(c.cp.Kubeconfig(), data, append([]string{"diff", "-f", "-"}, nsFlag...)...)
	if r.Err != nil || r.Stdout != "" {
		t.Errorf("kubectl diff after apply: %v\n%s%s", r.Err, r.Stdout, r.Stderr)
	}
	kinds := map[string]bool{}
	for _, o := range objs {
		kinds[o["kind"].(string)] = true
	}
	t.Logf("%d objects (%s) in namespaces %v", len(objs), strings.Join(slices.Sorted(maps.Keys(kinds)), ","), namespaces)
}
