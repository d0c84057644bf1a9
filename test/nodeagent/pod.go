package nodeagent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeIP is the Node's address (and every pod's hostIP).
const NodeIP = "127.0.0.1"

// podRun runs one pod: its directory, its containers and its status.
type podRun struct {
	a      *Agent
	pod    *corev1.Pod // as first seen: the spec cannot change
	dir    string      // termination messages, kubeconfigs
	volDir string      // volumes, short enough for a Unix socket's path in them
	logDir string
	ip     string // the pod's IP, which nothing listens on

	stopping  chan struct{} // closed when the pod is to stop
	killNow   chan struct{} // closed when the grace period is over
	stopOnce  sync.Once
	killOnce  sync.Once
	dirty     chan struct{} // a status change to write
	version   atomic.Uint64 // of the status: one more at each change
	synced    uint64        // the version last written (the status writer's)
	statusRun chan struct{} // closed when the status writer has ended

	mu          sync.Mutex
	latest      *corev1.Pod       // as last seen
	kubeconfigs map[string]string // by container name; none: no credentials
	sidecarStop chan struct{}     // closed once the main containers ended, in a stopping pod
	sidecars    sync.WaitGroup
	initCtrs    []*ctr
	ctrs        []*ctr
	initialized bool
	initFailed  bool
	isGone      bool
	startTime   metav1.Time
}

// ctr is one container's status as the agent keeps it.
type ctr struct {
	spec    *corev1.Container
	status  corev1.ContainerStatus
	final   bool // terminated and not to be restarted
	done    bool // a main container whose process ended for good, as the runtime knows it at once (before final)
	sidecar bool // an init container with restartPolicy Always
}

func newPodRun(a *Agent, p *corev1.Pod) *podRun {
	r := &podRun{a: a, pod: p.DeepCopy(), latest: p.DeepCopy(),
		dir: filepath.Join(a.cfg.Dir, "pods", string(p.UID)), ip: a.podIP(),
		volDir:   filepath.Join(os.TempDir(), "nav-"+string(p.UID)),
		logDir:   filepath.Join(a.LogDir(), p.Namespace, p.Name),
		stopping: make(chan struct{}), sidecarStop: make(chan struct{}), killNow: make(chan struct{}), dirty: make(chan struct{}, 1), statusRun: make(chan struct{}),
		startTime: metav1.Now()}
	waiting := func(c *corev1.Container) *ctr {
		return &ctr{spec: c, status: corev1.ContainerStatus{Name: c.Name, Image: c.Image,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}}}
	}
	for i := range r.pod.Spec.InitContainers {
		c := waiting(&r.pod.Spec.InitContainers[i])
		c.sidecar = isSidecar(c.spec)
		r.initCtrs = append(r.initCtrs, c)
	}
	for i := range r.pod.Spec.Containers {
		r.ctrs = append(r.ctrs, waiting(&r.pod.Spec.Containers[i]))
	}
	return r
}

func (r *podRun) logf(format string, args ...any) {
	r.a.cfg.Logf("nodeagent: pod %s/%s: %s", r.pod.Namespace, r.pod.Name, fmt.Sprintf(format, args...))
}

// update records the pod as last seen (its labels and annotations feed
// the downward API of containers that start later).
func (r *podRun) update(p *corev1.Pod) {
	r.mu.Lock()
	r.latest = p.DeepCopy()
	r.mu.Unlock()
}

// terminate stops the pod: SIGTERM to each container's main process now,
// SIGKILL to all its processes after grace. A later call may shorten the
// grace period (the earliest end wins), never lengthen it.
func (r *podRun) terminate(grace time.Duration) {
	r.stopOnce.Do(func() { close(r.stopping) })
	if grace <= 0 {
		r.kill()
	} else {
		time.AfterFunc(grace, r.kill)
	}
}

func (r *podRun) kill() { r.killOnce.Do(func() { close(r.killNow) }) }

// vanished marks a pod deleted from the API: nothing more is written.
func (r *podRun) vanished() {
	r.mu.Lock()
	r.isGone = true
	r.mu.Unlock()
}

func (r *podRun) stopped() bool {
	select {
	case <-r.stopping:
		return true
	default:
		return false
	}
}

// changed asks the status writer to write the current status.
func (r *podRun) changed() {
	r.version.Add(1)
	select {
	case r.dirty <- struct{}{}:
	default:
	}
}

// run runs the pod until it is deleted, then removes it.
func (r *podRun) run() {
	done := make(chan struct{})
	go r.writeStatuses(done)
	defer func() {
		close(done)
		<-r.statusRun
		_ = os.RemoveAll(r.dir)
		_ = os.RemoveAll(r.volDir)
		r.mu.Lock()
		gone := r.isGone
		r.mu.Unlock()
		if !gone {
			r.a.remove(r.pod)
		}
	}()
	if err := r.prepare(); err != nil {
		r.logf("prepare: %v", err)
		r.mu.Lock()
		for _, c := range append(r.initCtrs, r.ctrs...) {
			c.status.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CreateContainerConfigError", Message: err.Error()}}
		}
		r.mu.Unlock()
		r.changed()
		<-r.stopping
		return
	}
	r.changed()
	if r.runInit() {
		var wg sync.WaitGroup
		for _, c := range r.ctrs {
			wg.Add(1)
			go func() { defer wg.Done(); r.runContainer(c, false) }()
		}
		wg.Wait()
	}
	// As the kubelet does, sidecars stop once the main containers ended,
	// by themselves (none to restart: the pod ends) or as the pod stops.
	close(r.sidecarStop)
	r.sidecars.Wait()
	r.changed()
	<-r.stopping
	// Every process has ended (each runContainer waited for its own).
}

// mainsDone reports whether every main container's process ended for good.
func (r *podRun) mainsDone() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.ctrs {
		if !c.done {
			return false
		}
	}
	return true
}

// isSidecar reports whether c is a native sidecar: an init container that
// runs beside the main containers.
func isSidecar(c *corev1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// isClosed reports whether ch is closed.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// stopOf is what stops container c: the pod's stop, or for a sidecar the
// end of the main containers after it.
func (r *podRun) stopOf(c *ctr) <-chan struct{} {
	if c.sidecar {
		return r.sidecarStop
	}
	return r.stopping
}

// prepare makes the pod's directories and its containers' kubeconfigs.
func (r *podRun) prepare() error {
	for _, v := range r.pod.Spec.Volumes {
		dir := filepath.Join(r.volDir, v.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if v.Image != nil {
			if err := r.mountImage(dir, v.Image.Reference); err != nil {
				return fmt.Errorf("volume %s: %w", v.Name, err)
			}
		}
	}
	for _, d := range []string{filepath.Join(r.dir, "termination"), r.logDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	kubeconfigs, err := r.credentials(r.a.ctx)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.kubeconfigs = kubeconfigs
	r.mu.Unlock()
	return nil
}

// runInit runs the init containers in order; false if one failed for
// good or the pod stopped first.
func (r *podRun) runInit() bool {
	for _, c := range r.initCtrs {
		if c.sidecar {
			// Started, not waited for (the agent has no startup probes).
			r.sidecars.Add(1)
			go func() { defer r.sidecars.Done(); r.runContainer(c, false) }()
			continue
		}
		if !r.runContainer(c, true) {
			if !r.stopped() {
				r.mu.Lock()
				r.initFailed = true
				r.mu.Unlock()
			}
			return false
		}
	}
	r.mu.Lock()
	r.initialized = true
	for _, c := range r.ctrs {
		c.status.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}
	}
	r.mu.Unlock()
	return true
}

// runContainer starts the container and restarts it by policy until it
// is done for good or the pod stops. It reports whether the container's
// last run exited 0.
func (r *podRun) runContainer(c *ctr, init bool) bool {
	stop := r.stopOf(c)
	for {
		select {
		case <-stop:
			return false
		default:
		}
		t, waitReason := r.runOnce(c)
		if t == nil {
			// Cannot start at all (unknown image, bad env): wait, as the
			// kubelet retries, until the pod stops.
			r.mu.Lock()
			c.status.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: waitReason.reason, Message: waitReason.message}}
			r.mu.Unlock()
			r.changed()
			<-stop
			return false
		}
		// As the kubelet's computePodActions, a sidecar is not started again
		// once no main container is to run: it would keep the pod alive.
		restart := !isClosed(stop) && shouldRestart(r.pod, c.spec, t.ExitCode, init) && !(c.sidecar && r.mainsDone())
		r.mu.Lock()
		c.status.State = corev1.ContainerState{Terminated: t}
		c.status.Ready = false
		c.status.Started = new(false)
		c.final = !restart
		r.mu.Unlock()
		r.changed()
		if !restart {
			return t.ExitCode == 0
		}
		delay := min(r.a.cfg.Backoff<<min(c.status.RestartCount, 20), r.a.cfg.MaxBackoff)
		r.mu.Lock()
		c.status.LastTerminationState = corev1.ContainerState{Terminated: t}
		c.status.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff",
			Message: fmt.Sprintf("back-off %v restarting failed container=%s pod=%s", delay, c.spec.Name, r.pod.Name)}}
		r.mu.Unlock()
		r.changed()
		select {
		case <-time.After(delay):
		case <-stop:
			return false
		}
		r.mu.Lock()
		c.status.RestartCount++
		r.mu.Unlock()
	}
}

// shouldRestart decides as the kubelet does whether a container that
// exited with code is started again: the container's restartPolicyRules,
// then its own restartPolicy, else the pod's. Init containers restart
// only after a failure, and never under the pod's restartPolicy Never.
func shouldRestart(pod *corev1.Pod, c *corev1.Container, code int32, init bool) bool {
	if init {
		return code != 0 && pod.Spec.RestartPolicy != corev1.RestartPolicyNever
	}
	policy := string(pod.Spec.RestartPolicy)
	if c.RestartPolicy != nil {
		for _, rule := range c.RestartPolicyRules {
			if rule.ExitCodes != nil && slices.Contains(rule.ExitCodes.Values, code) == (rule.ExitCodes.Operator == corev1.ContainerRestartRuleOnExitCodesOpIn) {
				return rule.Action == corev1.ContainerRestartRuleActionRestart || rule.Action == corev1.ContainerRestartRuleActionRestartAllContainers
			}
		}
		policy = string(*c.RestartPolicy)
	}
	switch policy {
	case string(corev1.RestartPolicyAlways), "":
		return true
	case string(corev1.RestartPolicyOnFailure):
		return code != 0
	default:
		return false
	}
}

// tokenMountPath is where a container finds its ServiceAccount token.
const tokenMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"

// credentials writes a kubeconfig for each container that would find a
// token at tokenMountPath, as the kubelet mounts them: the container's own
// volume there (a projected ServiceAccount token of the pod's account, or
// a ServiceAccount token Secret), else the automounted token of the pod's
// account, unless the pod opts out.
func (r *podRun) credentials(ctx context.Context) (map[string]string, error) {
	spec := r.pod.Spec
	sa := spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range spec.Volumes {
		volumes[v.Name] = v
	}
	automount := spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken
	written := map[string]string{} // by token source
	out := map[string]string{}
	for _, c := range append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...) {
		source := ""
		if automount {
			source = "sa"
		}
		for _, m := range c.VolumeMounts {
			if filepath.Clean(m.MountPath) != tokenMountPath {
				continue
			}
			source = ""
			v := volumes[m.Name]
			switch {
			case v.Secret != nil:
				source = "secret/" + v.Secret.SecretName
			case v.Projected != nil:
				for _, p := range v.Projected.Sources {
					if p.ServiceAccountToken != nil {
						source = "sa"
					}
				}
			}
		}
		if source == "" {
			continue
		}
		if path, ok := written[source]; ok {
			out[c.Name] = path
			continue
		}
		var token string
		var err error
		if name, ok := strings.CutPrefix(source, "secret/"); ok {
			token, err = r.a.secretToken(ctx, r.pod.Namespace, name)
		} else {
			token, err = r.a.token(ctx, r.pod, sa)
		}
		if err != nil {
			return nil, err
		}
		path, err := writeKubeconfig(filepath.Join(r.dir, "kubeconfig-"+strings.ReplaceAll(source, "/", "-")), r.a.cfg.RestConfig, token)
		if err != nil {
			return nil, err
		}
		written[source], out[c.Name] = path, path
	}
	return out, nil
}

// mountImage fills dir with the files of image ref, as an image volume
// shows them: links to the local files, so nothing is copied.
func (r *podRun) mountImage(dir, ref string) error {
	img, ok := r.a.image(ref)
	if !ok {
		return fmt.Errorf("nodeagent: no image %q in the agent's table", ref)
	}
	for path, local := range img.Files {
		link := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			return err
		}
		if err := os.Symlink(local, link); err != nil {
			return err
		}
	}
	return nil
}
