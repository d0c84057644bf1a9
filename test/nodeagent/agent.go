package nodeagent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// Image is what a container image holds, as far as the agent needs it.
type Image struct {
	// Entrypoint and Cmd are the image's ENTRYPOINT and CMD.
	Entrypoint, Cmd []string
	// Files maps absolute paths inside the image to local files.
	Files map[string]string
}

// Config says what the agent is and what it runs.
type Config struct {
	// RestConfig reaches the API server with rights to manage Nodes, Leases,
	// pods and their status, and to request ServiceAccount tokens.
	RestConfig *rest.Config
	// Node is the Node's name; default "nodeagent".
	Node string
	// Dir holds the pods' directories and logs; default a temporary one,
	// removed by Stop.
	Dir string
	// Images by reference: "repo:tag", or "repo" for any tag or digest.
	Images map[string]Image
	// Env is every process's base environment; default PATH from the
	// agent's own.
	Env []string
	// Backoff is the first container restart delay, doubling up to
	// MaxBackoff (the kubelet's: 10s and 5m, the defaults).
	Backoff, MaxBackoff time.Duration
	// Capacity of the Node; default cpu 32, memory 128Gi, pods 110.
	Capacity corev1.ResourceList
	// Logf, when set, logs what the agent does.
	Logf func(format string, args ...any)
	// MeasureUsage samples the pods' memory for Usage every UsageInterval;
	// UsageName names the processes whose memory Usage also gives alone
	// (those whose name begins with it).
	MeasureUsage bool
	UsageName    string
}

// Agent is a running node agent.
type Agent struct {
	cfg    Config
	cs     kubernetes.Interface
	ctx    context.Context
	cancel context.CancelFunc
	ownDir bool
	wg     sync.WaitGroup

	mu      sync.Mutex
	pods    map[types.UID]*podRun
	removed map[types.UID]bool // pods deleted (or being deleted) with grace period 0
	usage   *usage
	nextIP  int
	stopped bool // no pod starts any more
}

// PodCIDR holds the pods' IPs. They are not loopback addresses, which
// Endpoints and EndpointSlices refuse, and nothing listens on them: a
// replica's peers are not reachable (there is no DNS either).
const PodCIDR = "10.88.0.0/16"

// podIP returns the next pod IP of PodCIDR.
func (a *Agent) podIP() string {
	a.nextIP++
	n := a.nextIP % (254 * 256)
	return fmt.Sprintf("10.88.%d.%d", n/254, n%254+1)
}

// LeaseDuration is the Node's lease duration; the agent renews it every
// quarter of it.
const LeaseDuration = 40 * time.Second

// Start registers the Node, starts renewing its Lease and begins running
// the pods bound to it. Stop ends it all.
func Start(ctx context.Context, cfg Config) (*Agent, error) {
	if cfg.RestConfig == nil {
		return nil, errors.New("nodeagent: no RestConfig")
	}
	if cfg.Node == "" {
		cfg.Node = "nodeagent"
	}
	if cfg.Backoff == 0 {
		cfg.Backoff = 10 * time.Second
	}
	if cfg.MaxBackoff == 0 {
		cfg.MaxBackoff = 5 * time.Minute
	}
	if cfg.Env == nil {
		cfg.Env = []string{"PATH=" + os.Getenv("PATH")}
	}
	if cfg.Capacity == nil {
		cfg.Capacity = corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("32"),
			corev1.ResourceMemory: resource.MustParse("128Gi"),
			corev1.ResourcePods:   resource.MustParse("110"),
		}
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	a := &Agent{cfg: cfg, pods: map[types.UID]*podRun{}, removed: map[types.UID]bool{}, usage: newUsage()}
	if a.cfg.Dir == "" {
		dir, err := os.MkdirTemp("", "nodeagent-")
		if err != nil {
			return nil, err
		}
		a.cfg.Dir, a.ownDir = dir, true
	}
	var err error
	if a.cs, err = kubernetes.NewForConfig(cfg.RestConfig); err != nil {
		return nil, fmt.Errorf("nodeagent: %w", err)
	}
	a.ctx, a.cancel = context.WithCancel(context.Background())
	if err := a.register(ctx); err != nil {
		a.Stop()
		return nil, err
	}
	a.wg.Add(1)
	go a.renewLease()
	if cfg.MeasureUsage {
		a.wg.Add(1)
		go a.sampleUsage()
	}

	factory := informers.NewSharedInformerFactoryWithOptions(a.cs, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("spec.nodeName", cfg.Node).String()
	}))
	inf := factory.Core().V1().Pods().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { a.sync(obj.(*corev1.Pod)) },
		UpdateFunc: func(_, obj any) { a.sync(obj.(*corev1.Pod)) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if p, ok := obj.(*corev1.Pod); ok {
				a.gone(p)
			}
		},
	}); err != nil {
		a.Stop()
		return nil, err
	}
	factory.Start(a.ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		a.Stop()
		return nil, errors.New("nodeagent: pod informer did not sync")
	}
	return a, nil
}

// Node is the name of the agent's Node.
func (a *Agent) Node() string { return a.cfg.Node }

// LogDir holds NAMESPACE/POD/CONTAINER.log, each container's output.
func (a *Agent) LogDir() string { return filepath.Join(a.cfg.Dir, "logs") }

// Logs returns the output of every container of the pods of namespace ns
// (all namespaces if ""), each under a header.
func (a *Agent) Logs(ns string) string {
	var b strings.Builder
	root := a.LogDir()
	if ns != "" {
		root = filepath.Join(root, ns)
	}
	_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		out, _ := os.ReadFile(path)
		rel, _ := filepath.Rel(a.LogDir(), path)
		fmt.Fprintf(&b, "--- %s ---\n%s", rel, out)
		return nil
	})
	return b.String()
}

// Stop kills every process it started (SIGKILL, no grace), stops renewing
// the Lease and removes its directory if it made it. The Node stays.
func (a *Agent) Stop() {
	a.mu.Lock()
	a.stopped = true
	a.cancel()
	runs := make([]*podRun, 0, len(a.pods))
	for _, r := range a.pods {
		runs = append(runs, r)
	}
	a.mu.Unlock()
	for _, r := range runs {
		r.terminate(0)
	}
	a.wg.Wait()
	if a.ownDir {
		_ = os.RemoveAll(a.cfg.Dir)
	}
}

// sync starts a pod it has not seen, and stops one being deleted.
func (a *Agent) sync(p *corev1.Pod) {
	a.mu.Lock()
	if a.stopped {
		a.mu.Unlock()
		return
	}
	r := a.pods[p.UID]
	if r == nil {
		if !startable(p) {
			if p.DeletionTimestamp != nil {
				a.wg.Add(1)
				go func() { defer a.wg.Done(); a.remove(p) }()
			}
			a.mu.Unlock()
			return
		}
		r = newPodRun(a, p)
		a.pods[p.UID] = r
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			r.run()
			a.mu.Lock()
			delete(a.pods, p.UID)
			a.mu.Unlock()
		}()
	}
	a.mu.Unlock()
	r.update(p)
	if p.DeletionTimestamp != nil {
		grace := int64(0)
		if p.DeletionGracePeriodSeconds != nil {
			grace = *p.DeletionGracePeriodSeconds
		}
		r.terminate(time.Duration(grace) * time.Second)
	}
}

// startable reports whether a pod bound here that the agent does not run
// yet is to start: not being deleted, not ended (as the kubelet, it does
// not run again a pod that ended), and not scheduling-gated. The API
// server binds no gated pod (kube-scheduler leaves it alone, and a
// binding or a nodeName at creation is refused while it has gates), so
// the last is a guard: a gated pod never runs here, whatever binds it.
func startable(p *corev1.Pod) bool {
	return p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed &&
		len(p.Spec.SchedulingGates) == 0
}

// gone kills at once the processes of a pod that no longer exists.
func (a *Agent) gone(p *corev1.Pod) {
	a.mu.Lock()
	r := a.pods[p.UID]
	a.mu.Unlock()
	if r != nil {
		r.vanished()
		r.terminate(0)
	}
}

// remove deletes a pod that has finished here, with grace period 0, as
// the kubelet does once its containers are gone: once, whatever updates of
// the pod come after.
func (a *Agent) remove(p *corev1.Pod) {
	a.mu.Lock()
	done := a.removed[p.UID]
	a.removed[p.UID] = true
	a.mu.Unlock()
	if done {
		return
	}
	err := a.cs.CoreV1().Pods(p.Namespace).Delete(a.ctx, p.Name, metav1.DeleteOptions{
		GracePeriodSeconds: new(int64(0)), Preconditions: metav1.NewUIDPreconditions(string(p.UID))})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) && a.ctx.Err() == nil {
		a.cfg.Logf("nodeagent: delete pod %s/%s: %v", p.Namespace, p.Name, err)
		a.mu.Lock()
		delete(a.removed, p.UID) // the pod's next update tries again
		a.mu.Unlock()
	}
}
