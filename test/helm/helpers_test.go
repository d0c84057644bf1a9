package helm

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/tfgen/tfgen/test/harness"
)

// root is the repository root, relative to this package.
const root = "../.."

// chartDir is the chart under test.
var chartDir = filepath.Join(root, "charts", "tfjob")

// helm is the helm binary of `make tools`, with Helm's state in the
// tests' own directory and tfgen on PATH for the post-renderer plugin; t
// fails without it.
func helm(t testing.TB) harness.Command {
	t.Helper()
	dir := os.Getenv("TFGEN_BIN")
	if dir == "" {
		dir = filepath.Join(root, "bin")
	}
	p, err := filepath.Abs(filepath.Join(dir, "helm"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("no helm binary at %s: run make tools", p)
	}
	return harness.Command{Path: p, Env: []string{
		"HELM_CACHE_HOME=" + filepath.Join(helmHome, "cache"),
		"HELM_CONFIG_HOME=" + filepath.Join(helmHome, "config"),
		"HELM_DATA_HOME=" + filepath.Join(helmHome, "data"),
		"PATH=" + filepath.Dir(tfgen.Path) + string(os.PathListSeparator) + os.Getenv("PATH"),
	}}
}

// object is one parsed Kubernetes object.
type object = map[string]any

// parse reads a YAML stream into its objects keyed "Kind namespace/name".
func parse(t testing.TB, stream []byte) map[string]object {
	t.Helper()
	objs, err := parseStream(stream)
	if err != nil {
		t.Fatalf("%v\n%s", err, stream)
	}
	return objs
}

func parseStream(stream []byte) (map[string]object, error) {
	objs := map[string]object{}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(stream)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, err
		}
		var o object
		if err := yaml.Unmarshal(doc, &o); err != nil {
			return nil, fmt.Errorf("parse %q: %w", doc, err)
		}
		if o == nil {
			continue
		}
		k := key(o)
		if _, dup := objs[k]; dup {
			return nil, fmt.Errorf("%s appears twice", k)
		}
		objs[k] = o
	}
}

// key names o as "Kind namespace/name".
func key(o object) string {
	meta, _ := o["metadata"].(map[string]any)
	ns, _ := meta["namespace"].(string)
	name, _ := meta["name"].(string)
	kind, _ := o["kind"].(string)
	return fmt.Sprintf("%s %s/%s", kind, ns, name)
}

// keys returns m's keys, sorted.
func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// diffObjects compares two sets of objects object by object.
func diffObjects(want, got map[string]object) string {
	var b strings.Builder
	if d := cmp.Diff(keys(want), keys(got)); d != "" {
		fmt.Fprintf(&b, "objects (-want +got):\n%s", d)
	}
	for _, k := range keys(want) {
		if g, ok := got[k]; ok {
			if d := cmp.Diff(want[k], g); d != "" {
				fmt.Fprintf(&b, "%s (-want +got):\n%s", k, d)
			}
		}
	}
	return b.String()
}

// hooks removes Helm hooks (the chart's test pod) from objs and returns them.
func hooks(objs map[string]object) map[string]object {
	out := map[string]object{}
	for k, o := range objs {
		meta, _ := o["metadata"].(map[string]any)
		ann, _ := meta["annotations"].(map[string]any)
		if _, ok := ann["helm.sh/hook"]; ok {
			out[k] = o
			delete(objs, k)
		}
	}
	return out
}
