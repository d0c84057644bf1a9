package operate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/tfgen/tfgen/internal/golden"
	"github.com/tfgen/tfgen/pkg/cli"
	"github.com/tfgen/tfgen/pkg/operate"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// t0 is when the fixtures' jobs started, as their records say.
var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// manualScheduler is the schedulerName of pods the test binds itself.
const manualScheduler = "tfgen-test-manual"

// waitTimeout bounds every wait for the cluster to reach a state.
const waitTimeout = 2 * time.Minute

// cluster is a test's namespace in the shared control plane.
type cluster struct {
	t   testing.TB
	cp  *controlplane.ControlPlane
	cs  kubernetes.Interface
	dyn dynamic.Interface
	ns  string
}

// newCluster creates namespace ns (named by the test, so that it appears
// in golden output), deleted when the test ends.
func newCluster(t testing.TB, ns string) *cluster {
	t.Helper()
	cp := controlplane.Shared(t)
	dyn, err := dynamic.NewForConfig(cp.RestConfig())
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{t: t, cp: cp, cs: cp.Client(), dyn: dyn, ns: ns}
	if _, err := c.cs.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	return c
}

// result is how a tfgen command ended.
type result struct {
	stdout, stderr string
	code           int
}

// tfgen runs the tfgen command in-process against the control plane, in
// the test's namespace unless args say otherwise, with the clock frozen at
// now.
func (c *cluster) tfgen(now time.Time, args ...string) result {
	var out bytes.Buffer
	r := c.tfgenTo(c.t.Context(), &out, now, args...)
	r.stdout = out.String()
	return r
}

// tfgenTo is tfgen with ctx, writing its standard output to out.
func (c *cluster) tfgenTo(ctx context.Context, out io.Writer, now time.Time, args ...string) result {
	var errOut bytes.Buffer
	cmd := cli.NewRootCmd(cli.Streams{In: strings.NewReader(""), Out: out, ErrOut: &errOut})
	full := append(slices.Clone(args), "--kubeconfig", c.cp.Kubeconfig())
	if !slices.Contains(args, "-n") && !slices.Contains(args, "-A") {
		full = append(full, "-n", c.ns)
	}
	cmd.SetArgs(full)
	err := cmd.ExecuteContext(cli.WithClock(ctx, func() time.Time { return now }))
	code := cli.Report(&errOut, err)
	return result{stderr: errOut.String(), code: code}
}

// must fails the test unless r ended with status 0 and no stderr.
func (c *cluster) must(r result, what string) result {
	c.t.Helper()
	if r.code != 0 || r.stderr != "" {
		c.t.Fatalf("%s: exit status %d\nstdout:\n%s\nstderr:\n%s", what, r.code, r.stdout, r.stderr)
	}
	return r
}

// assertGolden compares got with testdata/name.
func assertGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Assert(t, filepath.Join("testdata", name), []byte(got))
}

// firstName matches an example's metadata.name.
var firstName = regexp.MustCompile(`(?m)^  name: .*$`)

// apply renders example (examples/NAME.yaml) as job name with `tfgen
// render -n NS` and creates its objects. With manual, its pods name a
// scheduler that does not exist, so that only the test binds them.
func (c *cluster) apply(example, name string, manual bool) {
	c.t.Helper()
	src := firstName.ReplaceAllLiteralString(readExample(c.t, example), "  name: "+name)
	c.applyYAML([]byte(src), manual)
}

// readExample returns examples/NAME.yaml.
func readExample(t testing.TB, name string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

// applyYAML renders the job in src (with render's flags) and creates its
// objects.
func (c *cluster) applyYAML(src []byte, manual bool, flags ...string) {
	c.t.Helper()
	var out, errOut bytes.Buffer
	cmd := cli.NewRootCmd(cli.Streams{In: bytes.NewReader(src), Out: &out, ErrOut: &errOut})
	cmd.SetArgs(append([]string{"render", "-f", "-", "-n", c.ns, "--format", "json"}, flags...))
	if err := cmd.Execute(); err != nil {
		c.t.Fatalf("render: %v\n%s", err, errOut.String())
	}
	var list struct{ Items []map[string]any }
	if err := json.Unmarshal(out.Bytes(), &list); err != nil {
		c.t.Fatal(err)
	}
	for _, item := range list.Items {
		u := &unstructured.Unstructured{Object: item}
		u.SetNamespace(c.ns)
		if manual && u.GetKind() == "StatefulSet" {
			// The test's Node has no kubelet to renew its lease: once it
			// is unreachable, its pods must not be evicted.
			tolerations := []any{
				map[string]any{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
				map[string]any{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
			}
			err := errors.Join(unstructured.SetNestedField(u.Object, manualScheduler, "spec", "template", "spec", "schedulerName"),
				unstructured.SetNestedSlice(u.Object, tolerations, "spec", "template", "spec", "tolerations"))
			if err != nil {
				c.t.Fatal(err)
			}
		}
		gvr, ok := resources[u.GroupVersionKind().Group+"/"+u.GetKind()]
		if !ok {
			c.t.Fatalf("no resource for kind %s", u.GetKind())
		}
		if _, err := c.dyn.Resource(gvr).Namespace(c.ns).Create(c.t.Context(), u, metav1.CreateOptions{}); err != nil {
			c.t.Fatalf("create %s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
}

// resources are the kinds tfgen renders for the examples used here.
var resources = map[string]schema.GroupVersionResource{
	"/ServiceAccount":                       {Version: "v1", Resource: "serviceaccounts"},
	"/ConfigMap":                            {Version: "v1", Resource: "configmaps"},
	"/Service":                              {Version: "v1", Resource: "services"},
	"rbac.authorization.k8s.io/Role":        {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"},
	"rbac.authorization.k8s.io/RoleBinding": {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"},
	"apps/StatefulSet":                      {Group: "apps", Version: "v1", Resource: "statefulsets"},
	"apps/Deployment":                       {Group: "apps", Version: "v1", Resource: "deployments"},
	"scheduling.volcano.sh/PodGroup":        {Group: "scheduling.volcano.sh", Version: "v1beta1", Resource: "podgroups"},
}

// poll calls cond every 50ms until it holds, or fails the test after
// waitTimeout (or on cond's error) with what and cond's last word.
func (c *cluster) poll(what string, cond harness.Condition) {
	c.t.Helper()
	harness.Poller{Interval: 50 * time.Millisecond, Timeout: waitTimeout}.Poll(c.t, what, cond)
}

// job is job name of the test's namespace; its waits take waitTimeout
// at most.
func (c *cluster) job(name string) *harness.Job {
	return &harness.Job{T: c.t, Client: c.cs, Namespace: c.ns, Name: name, Timeout: waitTimeout}
}

// scale sets the replicas of StatefulSet job-typ, as a supervisor's
// teardown does (through the scale subresource).
func (c *cluster) scale(job, typ string, n int32) {
	c.t.Helper()
	patch := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, n)
	if _, err := c.cs.AppsV1().StatefulSets(c.ns).Patch(c.t.Context(), job+"-"+typ, types.MergePatchType, patch, metav1.PatchOptions{}, "scale"); err != nil {
		c.t.Fatal(err)
	}
}

// writeStatus updates job's record as its supervisors do, through
// pkg/record's Store.
func (c *cluster) writeStatus(job string, mutate func(*record.Status)) {
	c.t.Helper()
	_, err := operate.Store(c.cs, c.ns, job).Update(c.t.Context(), func(s *record.Status) error {
		mutate(s)
		return nil
	})
	if err != nil {
		c.t.Fatal(err)
	}
}
