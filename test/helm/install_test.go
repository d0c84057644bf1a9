package helm

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// TestInstallTestUninstall installs a job with the chart into a namespace
// that enforces the restricted Pod Security Standard, finds every rendered
// object and the StatefulSets' pods, runs `helm test` on a job nobody has
// started and on a failed one, and uninstalls: then nothing labelled with
// the job is left, of any kind, and no release either.
func TestInstallTestUninstall(t *testing.T) {
	cp := controlplane.Shared(t)
	cs := cp.Client()
	ns := harness.Namespace(t, cs, "helm-test", map[string]string{"pod-security.kubernetes.io/enforce": "restricted"})
	values := tfgen.Must(t, nil, "values", "-f", "test/helm/testdata/restricted.yaml")
	name, _ := release(t, values)
	kube := []string{"--kubeconfig", cp.Kubeconfig(), "-n", ns}

	rendered := parse(t, helm(t).Must(t, values, "template", name, chartDir, "-n", ns, "-f", "-"))
	hooks(rendered)
	out := helm(t).Must(t, values, append([]string{"install", name, chartDir, "-f", "-"}, kube...)...)
	if !strings.Contains(string(out), "STATUS: deployed") || !strings.Contains(string(out), "kubectl get pods -n "+ns+" -l training.kubeflow.org/job-name="+name) {
		t.Errorf("helm install printed:\n%s", out)
	}

	// Every rendered object is there, and the StatefulSets' pods (one chief,
	// two workers) passed admission: the templates' pods are restricted.
	want := keys(rendered)
	for _, p := range []string{"mnist-chief-0", "mnist-worker-0", "mnist-worker-1"} {
		want = append(want, "Pod "+ns+"/"+p)
	}
	lister := newLister(t, cp, ns)
	found := waitFor(t, lister, "training.kubeflow.org/job-name="+name, want)
	t.Logf("labelled with the job: %v", found)

	// helm test on a job nobody has started: it passes, and its pod goes.
	kubelet := &testKubelet{t: t, cp: cp, ns: ns, pod: name + "-test"}
	r := kubelet.helmTest(kube)
	if r.Err != nil {
		t.Errorf("helm test of a new job: %v\n%s", r.Err, r.Stderr)
	}
	if !strings.Contains(r.Stdout, "Phase:          Succeeded") {
		t.Errorf("helm test printed:\n%s", r.Stdout)
	}
	if want := "job mnist: no supervisor has reported yet"; !strings.Contains(kubelet.output, want) {
		t.Errorf("test pod printed %q, want %q", kubelet.output, want)
	}
	gone(t, cs, ns, name+"-test")

	// The job fails, as its supervisors would record it: helm test fails.
	failJob(t, cs, ns, name)
	r = kubelet.helmTest(kube)
	if r.Err == nil || !strings.Contains(r.Stderr, "pod "+name+"-test failed") {
		t.Errorf("helm test of a failed job: %v\n%s", r.Err, r.Stderr)
	}
	if want := "job mnist failed: BackoffLimitExceeded: worker-1 failed 4 times"; !strings.Contains(kubelet.output, want) {
		t.Errorf("test pod printed %q, want %q", kubelet.output, want)
	}
	gone(t, cs, ns, name+"-test")

	helm(t).Must(t, nil, append([]string{"uninstall", name}, kube...)...)
	poll(t, "nothing of the job left", func(ctx context.Context) (bool, string, error) {
		var err error
		found, err = lister.list(ctx, "training.kubeflow.org/job-name="+name)
		return len(found) == 0, "", err
	})
	left, err := lister.list(t.Context(), "app.kubernetes.io/instance="+name)
	if err != nil || len(left) > 0 {
		t.Errorf("left after helm uninstall: %v %v", left, err)
	}
	releases, err := lister.list(t.Context(), "owner=helm,name="+name)
	if err != nil || len(releases) > 0 {
		t.Errorf("release records left after helm uninstall: %v %v", releases, err)
	}
}

// TestInstallRefusesBadValues checks that helm install stops at the schema
// and creates nothing.
func TestInstallRefusesBadValues(t *testing.T) {
	cp := controlplane.Shared(t)
	ns := harness.Namespace(t, cp.Client(), "helm-test", nil)
	bad := strings.Replace(worker, "Worker:", "Trainer:", 1)
	r := helm(t).Run([]byte(bad), "install", "bad", chartDir, "-f", "-", "--kubeconfig", cp.Kubeconfig(), "-n", ns)
	if r.Err == nil || !strings.Contains(r.Stderr, "- at '/tfReplicaSpecs': additional properties 'Trainer' not allowed") {
		t.Fatalf("helm install with an unknown replica type: %v\n%s", r.Err, r.Stderr)
	}
	found, err := newLister(t, cp, ns).list(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range found {
		// What every namespace has.
		if !strings.HasPrefix(k, "ServiceAccount "+ns+"/default") && !strings.HasPrefix(k, "ConfigMap "+ns+"/kube-root-ca.crt") {
			t.Errorf("%s created by a refused install", k)
		}
	}
}

// TestInstallWithPostRenderer installs the chart that emits a TFJob with
// tfgen as post-renderer: the job runs as plain objects, with no TFJob
// CRD, and uninstalling removes them.
func TestInstallWithPostRenderer(t *testing.T) {
	installPlugin(t)
	cp := controlplane.Shared(t)
	ns := harness.Namespace(t, cp.Client(), "helm-test", nil)
	kube := []string{"--kubeconfig", cp.Kubeconfig(), "-n", ns}
	helm(t).Must(t, nil, append([]string{"install", "demo", trainerChart, "--post-renderer", "tfgen"}, kube...)...)
	in := func(list ...string) []string {
		for i, k := range list {
			list[i] = strings.Replace(k, " /", " "+ns+"/", 1)
		}
		return list
	}
	lister := newLister(t, cp, ns)
	// The job's objects carry its labels, its pods tfgen's.
	waitFor(t, lister, "app.kubernetes.io/part-of=trainer", in("ConfigMap /demo-config", "ConfigMap /demo", "StatefulSet /demo-worker",
		"Service /demo-worker", "ServiceAccount /demo-tfjob", "Role /demo-tfjob", "RoleBinding /demo-tfjob"))
	waitFor(t, lister, "training.kubeflow.org/job-name=demo", in("Pod /demo-worker-0", "Pod /demo-worker-1"))
	manifest := helm(t).Must(t, nil, append([]string{"get", "manifest", "demo"}, kube...)...)
	if strings.Contains(string(manifest), "kind: TFJob") {
		t.Errorf("the release holds a TFJob:\n%s", manifest)
	}
	helm(t).Must(t, nil, append([]string{"uninstall", "demo"}, kube...)...)
	poll(t, "nothing of the chart left", func(ctx context.Context) (bool, string, error) {
		chart, err := lister.list(ctx, "app.kubernetes.io/part-of=trainer")
		if err != nil {
			return false, "", err
		}
		job, err := lister.list(ctx, "training.kubeflow.org/job-name=demo")
		return len(chart)+len(job) == 0, "", err
	})
}

// waitFor waits until every object of want matches selector, and returns
// what matches then.
func waitFor(t *testing.T, l *lister, selector string, want []string) []string {
	t.Helper()
	var found []string
	if err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		now, err := l.list(ctx, selector)
		if err != nil {
			return false, err
		}
		found = now
		for _, k := range want {
			if !contains(found, k) {
				return false, nil
			}
		}
		return true, nil
	}); err != nil {
		var missing []string
		for _, k := range want {
			if !contains(found, k) {
				missing = append(missing, k)
			}
		}
		all, _ := l.list(context.Background(), "")
		t.Fatalf("waiting for %v: %v (found %v; the namespace holds %v)", missing, err, found, all)
	}
	return found
}

// poll calls cond every 100ms until it is true, fails or a minute has
// passed.
var poll = harness.Poller{Interval: 100 * time.Millisecond, Timeout: time.Minute}.Poll

// gone waits until pod is deleted.
func gone(t *testing.T, cs kubernetes.Interface, ns, pod string) {
	t.Helper()
	poll(t, "pod "+pod+" deleted", func(ctx context.Context) (bool, string, error) {
		_, err := cs.CoreV1().Pods(ns).Get(ctx, pod, metav1.GetOptions{})
		if err == nil {
			return false, "", nil
		}
		return true, "", client404(err)
	})
}

// lister lists objects of every namespaced kind the API server serves.
type lister struct {
	ns        string
	client    dynamic.Interface
	resources []schema.GroupVersionResource
	kinds     map[schema.GroupVersionResource]string
}

func newLister(t *testing.T, cp *controlplane.ControlPlane, ns string) *lister {
	t.Helper()
	cfg := cp.RestConfig()
	cfg.QPS, cfg.Burst = 1000, 1000 // a list of every kind per poll
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	lists, err := dc.ServerPreferredNamespacedResources()
	if err != nil {
		t.Fatal(err)
	}
	l := &lister{ns: ns, client: dynamic.NewForConfigOrDie(cfg), kinds: map[schema.GroupVersionResource]string{}}
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range list.APIResources {
			if !contains(r.Verbs, "list") || strings.Contains(r.Name, "/") {
				continue
			}
			gvr := gv.WithResource(r.Name)
			l.resources = append(l.resources, gvr)
			l.kinds[gvr] = r.Kind
		}
	}
	if len(l.resources) < 10 {
		t.Fatalf("only %d namespaced resources: %v", len(l.resources), l.resources)
	}
	return l
}

// list returns "Kind namespace/name" of every object matching selector.
func (l *lister) list(ctx context.Context, selector string) ([]string, error) {
	var out []string
	for _, gvr := range l.resources {
		items, err := l.client.Resource(gvr).Namespace(l.ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", gvr, err)
		}
		for _, it := range items.Items {
			out = append(out, fmt.Sprintf("%s %s/%s", l.kinds[gvr], it.GetNamespace(), it.GetName()))
		}
	}
	sort.Strings(out)
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
