package anchor

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"sigs.k8s.io/yaml"

	"github.com/tfgen/tfgen/pkg/cli"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
	"github.com/tfgen/tfgen/test/nodeagent"
)

const (
	namespace  = "anchor"
	jobName    = "anchor"
	shellImage = "tfgen.test/shell:1"
)

// system is a way to run the job: Kubeflow's operator or tfgen.
type system interface {
	// apply creates the job's objects.
	apply(ctx context.Context, dyn dynamic.Interface) error
	// succeeded waits for the job to succeed and says whether its status
	// counts every worker.
	succeeded(ctx context.Context, dyn dynamic.Interface, n int) (exact bool, err error)
	// remove deletes the job as its user would.
	remove(ctx context.Context, dyn dynamic.Interface) error
}

// kubeflow creates the TFJob for the operator.
type kubeflow struct {
	shape shape
	n     int
}

func (k kubeflow) apply(ctx context.Context, dyn dynamic.Interface) error {
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(k.shape.tfJob(k.n), &u.Object); err != nil {
		return err
	}
	_, err := dyn.Resource(tfjobs).Namespace(namespace).Create(ctx, u, metav1.CreateOptions{})
	return err
}

func (k kubeflow) succeeded(ctx context.Context, dyn dynamic.Interface, n int) (bool, error) {
	u, err := waitObject(ctx, dyn.Resource(tfjobs).Namespace(namespace), func(u *unstructured.Unstructured) (bool, error) {
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			c, _ := c.(map[string]any)
			if c["status"] == "True" && c["type"] == "Succeeded" {
				return true, nil
			}
			if c["status"] == "True" && c["type"] == "Failed" {
				return false, fmt.Errorf("TFJob failed: %v", c["message"])
			}
		}
		return false, nil
	})
	if err != nil {
		return false, err
	}
	done, _, _ := unstructured.NestedInt64(u.Object, "status", "replicaStatuses", "Worker", "succeeded")
	return done == int64(n), nil
}

func (k kubeflow) remove(ctx context.Context, dyn dynamic.Interface) error {
	return dyn.Resource(tfjobs).Namespace(namespace).Delete(ctx, jobName, background)
}

var background = metav1.DeleteOptions{PropagationPolicy: new(metav1.DeletePropagationBackground)}

// tfgen renders the same TFJob and creates what it renders.
type tfgen struct{ objects []*unstructured.Unstructured }

func newTfgen(s shape, n int, flags ...string) (*tfgen, error) {
	var out, errOut bytes.Buffer
	cmd := cli.NewRootCmd(cli.Streams{In: bytes.NewReader(s.tfJob(n)), Out: &out, ErrOut: &errOut})
	cmd.SetArgs(append([]string{"render", "-f", "-", "-n", namespace, "--format", "json"}, flags...))
	if err := cmd.Execute(); err != nil {
		return nil, fmt.Errorf("render: %v\n%s", err, errOut.String())
	}
	var list struct{ Items []map[string]any }
	if err := json.Unmarshal(out.Bytes(), &list); err != nil {
		return nil, err
	}
	t := &tfgen{}
	for _, item := range list.Items {
		t.objects = append(t.objects, &unstructured.Unstructured{Object: item})
	}
	return t, nil
}

// resources are the kinds tfgen renders for the job.
var resources = map[string]schema.GroupVersionResource{
	"/ServiceAccount":                       {Version: "v1", Resource: "serviceaccounts"},
	"/ConfigMap":                            {Version: "v1", Resource: "configmaps"},
	"/Service":                              {Version: "v1", Resource: "services"},
	"rbac.authorization.k8s.io/Role":        {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"},
	"rbac.authorization.k8s.io/RoleBinding": {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"},
	"apps/StatefulSet":                      {Group: "apps", Version: "v1", Resource: "statefulsets"},
}

func (t *tfgen) apply(ctx context.Context, dyn dynamic.Interface) error {
	for _, u := range t.objects {
		r, err := resourceOf(dyn, u)
		if err != nil {
			return err
		}
		if _, err := r.Create(ctx, u, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create %s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	return nil
}

func (t *tfgen) succeeded(ctx context.Context, dyn dynamic.Interface, n int) (bool, error) {
	configMaps := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace(namespace)
	var status *record.Status
	_, err := waitObject(ctx, configMaps, func(u *unstructured.Unstructured) (bool, error) {
		data, _, _ := unstructured.NestedStringMap(u.Object, "data")
		s, err := record.Parse(data)
		if err != nil {
			return false, err
		}
		if s.IsTrue(record.JobFailed) {
			return false, fmt.Errorf("job failed: %+v", s.Conditions)
		}
		status = s
		return s.IsTrue(record.JobSucceeded), nil
	})
	if err != nil {
		return false, err
	}
	w := status.ReplicaStatuses["Worker"]
	return w != nil && w.Succeeded == int32(n), nil
}

func (t *tfgen) remove(ctx context.Context, dyn dynamic.Interface) error {
	for _, u := range t.objects {
		r, err := resourceOf(dyn, u)
		if err != nil {
			return err
		}
		if err := r.Delete(ctx, u.GetName(), background); err != nil {
			return fmt.Errorf("delete %s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	return nil
}

func resourceOf(dyn dynamic.Interface, u *unstructured.Unstructured) (dynamic.ResourceInterface, error) {
	gvr, ok := resources[u.GroupVersionKind().Group+"/"+u.GetKind()]
	if !ok {
		return nil, fmt.Errorf("no resource for kind %s", u.GetKind())
	}
	return dyn.Resource(gvr).Namespace(namespace), nil
}

// waitObject watches the job's object (named jobName) until cond holds,
// and returns it.
func waitObject(ctx context.Context, r dynamic.ResourceInterface, cond func(*unstructured.Unstructured) (bool, error)) (*unstructured.Unstructured, error) {
	sel := fields.OneTermEqualSelector("metadata.name", jobName).String()
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = sel
			return r.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = sel
			return r.Watch(ctx, o)
		},
	}
	ev, err := watchtools.UntilWithSync(ctx, lw, &unstructured.Unstructured{}, nil, func(e watch.Event) (bool, error) {
		u, ok := e.Object.(*unstructured.Unstructured)
		if !ok || e.Type == watch.Deleted {
			return false, nil
		}
		return cond(u)
	})
	if err != nil {
		return nil, err
	}
	return ev.Object.(*unstructured.Unstructured), nil
}

// result is one run's figures.
type result struct {
	shape                       string
	system                      string
	n                           int
	exact                       bool
	succeeded, released, gone   time.Duration // from the apply; gone: after the delete
	halfReleased                time.Duration // half the pods released, from the apply
	apiToSucceeded, apiLife     time.Duration // the API server's CPU
	requests, writes            int
	conflicts, throttled, fails int // 409s, 429s, 5xx
	pods                        nodeagent.Usage
	started                     time.Duration // the last pod's container started, from the apply
	operatorCPU                 time.Duration
	// What finished replicas held after their training ended (a shape
	// whose workers say when: early), and how many trained again.
	held  held
	again int
}

// releaseTarget is the most a job's pods may take, after it succeeded,
// to hold nothing (issue 41, at 1,000 workers).
const releaseTarget = 5 * time.Second

// holdTarget is the most a finished replica may hold anything after its
// training ended (issue 41).
const holdTarget = 2 * time.Second

// line is the result for hack/bench-anchor.sh: "anchor" and name=value pairs.
func (r result) line() string {
	secs := func(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) }
	mb := func(b int64) string {
		if r.pods.Pods == 0 {
			return "0"
		}
		return strconv.FormatFloat(float64(b)/float64(r.pods.Pods)/(1<<20), 'f', 1, 64)
	}
	atPeak := func(b int64) string {
		if r.pods.Peak.Pods == 0 {
			return "0"
		}
		return strconv.FormatFloat(float64(b)/float64(r.pods.Peak.Pods)/(1<<20), 'f', 1, 64)
	}
	f := func(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }
	return fmt.Sprintf("anchor shape=%s system=%s n=%d succeeded=%s exact=%t half_released=%s released=%s gone=%s api_cpu_succeeded=%s api_cpu=%s "+
		"requests=%d writes=%d 409=%d 429=%d 5xx=%d pods_cpu=%s rss_per_pod_mb=%s supervisors_per_pod_mb=%s "+
		"supervisors_rss_at_peak_mb=%s supervisors_pss_at_peak_mb=%s started=%s operator_cpu=%s "+
		"released_after=%s release_target=%s ended=%d again=%d held_cpu=%s held_median=%s held_max=%s held_over=%d hold_target=%s held_open=%d",
		r.shape, r.system, r.n, secs(r.succeeded), r.exact, secs(r.halfReleased), secs(r.released), secs(r.gone), secs(r.apiToSucceeded), secs(r.apiLife),
		r.requests, r.writes, r.conflicts, r.throttled, r.fails, secs(r.pods.CPU), mb(r.pods.RSS), mb(r.pods.Named),
		atPeak(r.pods.Peak.RSS), atPeak(r.pods.Peak.PSS), secs(r.started), secs(r.operatorCPU),
		f((r.released-r.succeeded).Seconds(), 2), f(releaseTarget.Seconds(), 0), r.held.replicas, r.again, f(r.held.cpu, 1),
		f(r.held.median(), 2), f(r.held.longest(), 2), r.held.over(holdTarget), f(holdTarget.Seconds(), 0), r.held.open)
}

func BenchmarkAnchor(b *testing.B) {
	var runs []shape
	for _, name := range strings.Split(env("TFGEN_ANCHOR_SHAPES", "same,early"), ",") {
		s, err := shapeNamed(strings.TrimSpace(name))
		if err != nil {
			b.Fatalf("TFGEN_ANCHOR_SHAPES: %v", err)
		}
		runs = append(runs, s)
	}
	sizes := map[string][]int{}
	for _, v := range []struct{ shape, name, def string }{{same.name, "TFGEN_ANCHOR_N", "100,500,1000"}, {early.name, "TFGEN_ANCHOR_EARLY_N", "1000"}} {
		n, err := ints(env(v.name, v.def))
		if err != nil {
			b.Fatalf("%s: %v", v.name, err)
		}
		sizes[v.shape] = n
	}
	scratch := b.TempDir()
	// The image's two builds side by side, as in the image: install copies
	// the wrap-only one for the training container, an image volume shows
	// both.
	supervisor, wrap := filepath.Join(scratch, "bin", "tfsupervisor"), filepath.Join(scratch, "bin", "tfsupervisor-wrap")
	for out, tags := range map[string]string{supervisor: "", wrap: "tfsupervisor_wrap"} {
		build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-tags", tags, "-o", out, "github.com/tfgen/tfgen/cmd/tfsupervisor")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if msg, err := build.CombinedOutput(); err != nil {
			b.Fatalf("build %s: %v\n%s", out, err, msg)
		}
	}
	kubectl, err := harness.FindKubectl(filepath.Join(scratch, "kube-cache"))
	if err != nil {
		b.Fatal(err)
	}
	for _, sh := range runs {
		for _, n := range sizes[sh.name] {
			for _, sys := range strings.Split(env("TFGEN_ANCHOR_SYSTEMS", "kubeflow,jobset,tfgen,tfgen-copy,tfgen-pods"), ",") {
				b.Run(fmt.Sprintf("%s/%s/N=%d", sh.name, sys, n), func(b *testing.B) {
					for range b.N {
						r := run(b, sys, n, runEnv{shape: sh, supervisor: supervisor, wrap: wrap, kubectl: kubectl, scratch: b.TempDir()})
						fmt.Println(r.line())
					}
				})
			}
		}
	}
}

type runEnv struct {
	shape            shape
	supervisor, wrap string
	kubectl          harness.Kubectl
	scratch          string
}

// Each node stands in for a kubelet of the defaults: at most 110 pods,
// and a client of 50 requests a second (burst 100). A job's pods spread
// over as many nodes as they need, as they would on a cluster, so that no
// one node's client rate decides how fast pods start and end.
const (
	podsPerNode            = 110
	kubeletQPS, kubeletBur = 50, 100
)

// startNodes starts the node agents that n workers (and the few pods
// beside them) need.
func startNodes(ctx context.Context, cp *controlplane.ControlPlane, n int, e runEnv) ([]*nodeagent.Agent, error) {
	count := (n + 50 + podsPerNode - 1) / podsPerNode
	var agents []*nodeagent.Agent
	for i := range count {
		rc := cp.RestConfig()
		rc.QPS, rc.Burst = kubeletQPS, kubeletBur
		a, err := nodeagent.Start(ctx, nodeagent.Config{
			RestConfig: rc,
			Node:       fmt.Sprintf("anchor-node-%d", i),
			Dir:        filepath.Join(e.scratch, fmt.Sprintf("node-%d", i)),
			Images: map[string]nodeagent.Image{
				"ghcr.io/tfgen/tfsupervisor": {Files: map[string]string{"/tfsupervisor": e.supervisor, "/tfsupervisor-wrap": e.wrap}},
				shellImage:                   {},
			},
			Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(e.shape.nodeCPU), corev1.ResourceMemory: resource.MustParse("1Ti"),
				corev1.ResourcePods: *resource.NewQuantity(podsPerNode, resource.DecimalSI)},
			MeasureUsage: true,
			UsageName:    "tfsupervisor",
		})
		if err != nil {
			for _, a := range agents {
				a.Stop()
			}
			return nil, err
		}
		agents = append(agents, a)
	}
	return agents, nil
}

// cpuByContainer lists CPU times by container name, the most first.
func cpuByContainer(by map[string]time.Duration) string {
	names := slices.SortedFunc(maps.Keys(by), func(a, b string) int { return cmp.Compare(by[b], by[a]) })
	var s strings.Builder
	for _, name := range names {
		fmt.Fprintf(&s, " %s %.1f s", name, by[name].Seconds())
	}
	return s.String()
}

// usageOf adds up the nodes' usage. Each node's memory peak is its own
// sample's; they add up to about the machine's.
func usageOf(agents []*nodeagent.Agent) nodeagent.Usage {
	out := nodeagent.Usage{CPUByContainer: map[string]time.Duration{}}
	for _, a := range agents {
		u := a.Usage()
		out.Pods += u.Pods
		out.CPU += u.CPU
		for name, cpu := range u.CPUByContainer {
			out.CPUByContainer[name] += cpu
		}
		out.RSS += u.RSS
		out.Named += u.Named
		out.Ends = append(out.Ends, u.Ends...)
		if u.LastStart.After(out.LastStart) {
			out.LastStart = u.LastStart
		}
		out.Peak.Pods += u.Peak.Pods
		out.Peak.RSS += u.Peak.RSS
		out.Peak.PSS += u.Peak.PSS
	}
	return out
}

// run runs the job once through sys on a fresh control plane and nodes.
func run(b *testing.B, sys string, n int, e runEnv) result {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cp, err := controlplane.Start(ctx, controlplane.Options{ControllerManager: true, Scheduler: true, JobSet: sys == "jobset"})
	if err != nil {
		b.Fatal(err)
	}
	defer cp.Stop()
	agents, err := startNodes(ctx, cp, n, e)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		for _, a := range agents {
			a.Stop()
		}
	}()

	var s system
	var op *operator
	switch sys {
	case "kubeflow":
		dir := os.Getenv("TFGEN_KUBEFLOW_OPERATOR")
		if dir == "" {
			b.Fatal("TFGEN_KUBEFLOW_OPERATOR: the directory hack/anchor/operator.sh built the operator into")
		}
		if op, err = startOperator(ctx, cp, e.kubectl, dir, e.scratch); err != nil {
			b.Fatal(err)
		}
		defer op.stop()
		s = kubeflow{shape: e.shape, n: n}
	case "jobset":
		s = jobSetSystem{shape: e.shape, n: n}
	case "tfgen":
		if s, err = newTfgen(e.shape, n); err != nil {
			b.Fatal(err)
		}
	case "tfgen-copy":
		if s, err = newTfgen(e.shape, n, "--supervisor-volume", "copy"); err != nil {
			b.Fatal(err)
		}
	case "tfgen-pods":
		if s, err = newTfgen(e.shape, n, "--endpoints", "pod"); err != nil {
			b.Fatal(err)
		}
	default:
		b.Fatalf("TFGEN_ANCHOR_SYSTEMS: unknown system %q (kubeflow, jobset, tfgen, tfgen-copy, tfgen-pods)", sys)
	}

	cs := cp.Client()
	dyn, err := dynamic.NewForConfig(cp.RestConfig())
	if err != nil {
		b.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	pods, err := watchPods(ctx, cs, namespace)
	if err != nil {
		b.Fatal(err)
	}
	statefulSets, err := watchSets(ctx, cs, namespace)
	if err != nil {
		b.Fatal(err)
	}
	before, err := scrapeRequests(ctx, cs)
	if err != nil {
		b.Fatal(err)
	}
	cpu0 := cp.CPUTime("kube-apiserver")
	profileAtEnd, profile := os.Getenv("TFGEN_ANCHOR_PROFILE_AT") == "end", func() {}
	if !profileAtEnd {
		profile = startProfile(ctx, b, cp, sys, n)
	}

	r := result{shape: e.shape.name, system: sys, n: n}
	start := time.Now()
	if err := s.apply(ctx, dyn); err != nil {
		b.Fatal(err)
	}
	if r.exact, err = s.succeeded(ctx, dyn, n); err != nil {
		b.Fatalf("%s, %d workers: %v\n%s", sys, n, err, cp.Logs(20))
	}
	r.succeeded, r.apiToSucceeded = time.Since(start), cp.CPUTime("kube-apiserver")-cpu0
	succeededAt := time.Now()
	atSucceeded, err := scrapeRequests(ctx, cs)
	if err != nil {
		b.Fatal(err)
	}
	if profileAtEnd {
		profile = startProfile(ctx, b, cp, sys, n)
	}
	if err := pods.wait(ctx, func() bool { return pods.holding() <= n/2 }); err != nil {
		b.Fatalf("%s: pods still hold their resources: %d (%v)", sys, pods.holding(), err)
	}
	r.halfReleased = time.Since(start)
	if err := pods.wait(ctx, func() bool { return pods.holding() == 0 }); err != nil {
		b.Fatalf("%s: pods still hold their resources: %d (%v)", sys, pods.holding(), err)
	}
	r.released = time.Since(start)
	atReleased, err := scrapeRequests(ctx, cs)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "%s, %d workers: the requests from Succeeded to released\n%s", sys, n, atReleased.since(atSucceeded).top(12))
	fmt.Fprintf(os.Stderr, "%s, %d workers: after the job succeeded: %s\n", sys, n, pods.endsAfter(succeededAt, usageOf(agents).Ends))
	fmt.Fprintf(os.Stderr, "%s, %d workers: %s\n", sys, n, pods.made(start))
	if sum := statefulSets.summary(start); sum != "" {
		fmt.Fprintf(os.Stderr, "%s, %d workers: the StatefulSets (from the apply):\n%s\n", sys, n, sum)
	}
	deleted := time.Now()
	if err := s.remove(ctx, dyn); err != nil {
		b.Fatal(err)
	}
	if err := pods.wait(ctx, func() bool { return pods.left() == 0 }); err != nil {
		b.Fatalf("%s: pods left after the delete: %d (%v)", sys, pods.left(), err)
	}
	r.gone = time.Since(deleted)
	if e.shape.script != nil {
		var logDirs []string
		for _, a := range agents {
			logDirs = append(logDirs, a.LogDir())
		}
		ends, again, err := trainingEnds(logDirs, namespace)
		if err != nil {
			b.Fatal(err)
		}
		r.held, r.again = pods.finishedHeld(ends), len(again)
		fmt.Fprintf(os.Stderr, "%s, %s, %d workers: %d replicas' training ended (%d again); their pods held %.1f node-s of CPU after it, %.2f s a replica at the median, %.2f s the longest, %d over %.0f s\n",
			sys, e.shape.name, n, r.held.replicas, len(again), r.held.cpu, r.held.median(), r.held.longest(), r.held.over(holdTarget), holdTarget.Seconds())
		for i, pod := range again {
			if i == 3 {
				fmt.Fprintf(os.Stderr, "... and %d more that trained again\n", len(again)-i)
				break
			}
			fmt.Fprintf(os.Stderr, "%s trained again; its containers' output:\n%s", pod, podLogs(logDirs, namespace, pod))
		}
	}
	r.apiLife = cp.CPUTime("kube-apiserver") - cpu0
	after, err := scrapeRequests(ctx, cs)
	if err != nil {
		b.Fatal(err)
	}
	d := after.since(before)
	r.requests, r.writes = d.count(all), d.count(isWrite)
	r.conflicts, r.throttled, r.fails = d.count(code("409")), d.count(code("429")), d.count(is5xx)
	fmt.Fprintf(os.Stderr, "%s, %d workers: the most frequent requests\n%s", sys, n, d.top(15))
	r.pods = usageOf(agents)
	fmt.Fprintf(os.Stderr, "%s, %d workers: the pods' CPU by container:%s\n", sys, n, cpuByContainer(r.pods.CPUByContainer))
	if !r.pods.LastStart.IsZero() {
		r.started = r.pods.LastStart.Sub(start)
	}
	switch {
	case op != nil:
		r.operatorCPU = op.stop()
	case sys == "jobset":
		r.operatorCPU = cp.CPUTime("jobset")
	}
	profile()
	return r
}

// startProfile takes a CPU profile of the API server from now, for
// TFGEN_ANCHOR_PROFILE_SECONDS (default 30), into TFGEN_ANCHOR_PROFILE
// when that is set; the returned function waits for it. It starts at the
// apply, or with TFGEN_ANCHOR_PROFILE_AT=end when the job has succeeded.
func startProfile(ctx context.Context, b *testing.B, cp *controlplane.ControlPlane, sys string, n int) func() {
	dir := os.Getenv("TFGEN_ANCHOR_PROFILE")
	if dir == "" {
		return func() {}
	}
	secs := env("TFGEN_ANCHOR_PROFILE_SECONDS", "30")
	done := make(chan struct{})
	go func() {
		defer close(done)
		body, err := cp.Client().Discovery().RESTClient().Get().AbsPath("/debug/pprof/profile").Param("seconds", secs).Stream(ctx)
		if err != nil {
			b.Logf("profile: %v", err)
			return
		}
		defer body.Close()
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("apiserver-%s-%d.pprof", sys, n)))
		if err == nil {
			_, err = io.Copy(f, body)
			f.Close()
		}
		if err != nil {
			b.Logf("profile: %v", err)
		}
	}()
	return func() { <-done }
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive number", f)
		}
		out = append(out, n)
	}
	return out, nil
}
