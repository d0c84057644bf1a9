package supervisor

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/pkg/operate"
	"github.com/tfgen/tfgen/pkg/supervise"
	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// bin is the tfsupervisor binary under test; wrapBin its wrap-only build
// (tag tfsupervisor_wrap), which the image installs for the training
// container: the wrap-mode replicas' `run --socket` is wrapBin.
var bin, wrapBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tfsupervisor-e2e")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "tfsupervisor")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "github.com/tfgen/tfgen/cmd/tfsupervisor")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build tfsupervisor: %v\n%s", err, out)
		os.Exit(1)
	}
	wrapBin = bin + "-wrap"
	build = exec.Command("go", "build", "-trimpath", "-tags", "tfsupervisor_wrap", "-o", wrapBin, "github.com/tfgen/tfgen/cmd/tfsupervisor")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build tfsupervisor (wrap): %v\n%s", err, out)
		os.Exit(1)
	}
	code := controlplane.Main(m, controlplane.Options{})
	os.RemoveAll(dir)
	os.Exit(code)
}

// job is a job's objects in a fresh namespace: the record ConfigMap, and
// a StatefulSet and pods per replica type of roles ("chief:1:2222,...");
// its keeper is made by keeper. Its waits take a minute at most.
type job struct {
	*harness.Job
	cp    *controlplane.ControlPlane
	roles string
	// sts stands in for the StatefulSet controller (observer).
	sts *observer
}

func newJob(t testing.TB, roles string, replicas map[string]int32) *job {
	t.Helper()
	cp := controlplane.Shared(t)
	cs := cp.Client()
	ctx := t.Context()
	ns := harness.Namespace(t, cs, "sup", nil)
	j := &job{Job: &harness.Job{T: t, Client: cs, Namespace: ns, Name: "j", Timeout: time.Minute}, cp: cp, roles: roles,
		sts: observe(ctx, cs, ns)}
	// No controller-manager here: the ServiceAccount admission needs the
	// namespace's default ServiceAccount made by hand.
	if _, err := cs.CoreV1().ServiceAccounts(j.Namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: j.Name, Labels: map[string]string{"app.kubernetes.io/instance": j.Name,
		"app.kubernetes.io/managed-by": "tfgen", "app.kubernetes.io/component": "job"}},
		Data: map[string]string{"spec.json": "{}"}}
	if _, err := cs.CoreV1().ConfigMaps(j.Namespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for typ, n := range replicas {
		labels := map[string]string{"training.kubeflow.org/job-name": j.Name, "training.kubeflow.org/replica-type": typ}
		sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: j.Name + "-" + typ},
			Spec: appsv1.StatefulSetSpec{Replicas: &n, ServiceName: j.Name + "-" + typ,
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "tensorflow", Image: "tf"}}}}}}
		if _, err := cs.AppsV1().StatefulSets(j.Namespace).Create(ctx, sts, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return j
}

// pod creates pod name of the job, bound to a node, with the training
// container and the tfsupervisor sidecar, and the labels a StatefulSet's
// pods get.
func (j *job) pod(name string) *corev1.Pod {
	j.T.Helper()
	p, err := j.Client.CoreV1().Pods(j.Namespace).Create(j.T.Context(), j.podObject(name), metav1.CreateOptions{})
	if err != nil {
		j.T.Fatal(err)
	}
	return p
}

func (j *job) podObject(name string) *corev1.Pod {
	rest := strings.TrimPrefix(name, j.Name+"-")
	typ := rest[:strings.LastIndexByte(rest, '-')]
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name,
		Labels: map[string]string{"training.kubeflow.org/job-name": j.Name, "training.kubeflow.org/replica-type": typ, "app.kubernetes.io/managed-by": "tfgen"}},
		Spec: corev1.PodSpec{NodeName: "node-1",
			Containers: []corev1.Container{{Name: "tensorflow", Image: "tf"}, {Name: "tfsupervisor", Image: "sup"}}}}
}

// keeperPod is the job's keeper as tfgen renders it: the pod J-keeper-0
// of its own StatefulSet J-keeper, with the keeper's labels and none of
// training.kubeflow.org's (it is none of the job's replicas), running
// tfsupervisor keep with the job's flags.
type keeperPod struct {
	j          *job
	kubeconfig string
	env, flags []string
	p          *proc
}

// keeper makes the job's keeper (its StatefulSet and its pod) and starts
// it with the job's flags, as the control plane's administrator.
func (j *job) keeper(flags ...string) *keeperPod {
	j.T.Helper()
	k := j.makeKeeper(j.cp.Kubeconfig(), nil, flags...)
	k.start()
	return k
}

// keeperEnv is keeper with env, flags given as TFSUPERVISOR_ variables.
func (j *job) keeperEnv(env []string, flags ...string) *keeperPod {
	j.T.Helper()
	k := j.makeKeeper(j.cp.Kubeconfig(), env, flags...)
	k.start()
	return k
}

// makeKeeper makes the job's keeper, to be started talking through
// kubeconfig, with env (TFSUPERVISOR_ flags) and flags.
func (j *job) makeKeeper(kubeconfig string, env []string, flags ...string) *keeperPod {
	j.T.Helper()
	ctx := j.T.Context()
	labels := map[string]string{operate.LabelComponent: supervise.KeeperType, operate.LabelInstance: j.Name, operate.LabelManagedBy: operate.ManagedBy}
	one := int32(1)
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: j.keeperName(""), Labels: labels},
		Spec: appsv1.StatefulSetSpec{Replicas: &one, ServiceName: j.keeperName(""), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: operate.SupervisorContainer, Image: "sup"}}}}}}
	if _, err := j.Client.AppsV1().StatefulSets(j.Namespace).Create(ctx, sts, metav1.CreateOptions{}); err != nil {
		j.T.Fatal(err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: j.keeperName("0"), Labels: labels},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: operate.SupervisorContainer, Image: "sup"}}}}
	if _, err := j.Client.CoreV1().Pods(j.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		j.T.Fatal(err)
	}
	return &keeperPod{j: j, kubeconfig: kubeconfig, env: env, flags: flags}
}

// keeperName is the name of the keeper's StatefulSet (ordinal ""), or of
// its pod of ordinal.
func (j *job) keeperName(ordinal string) string {
	name := j.Name + "-" + supervise.KeeperType
	if ordinal != "" {
		name += "-" + ordinal
	}
	return name
}

// start starts the keeper on its pod: again after it was killed, as the
// kubelet restarts its container.
func (k *keeperPod) start() {
	k.j.T.Helper()
	cmd := k.j.supervisor(k.j.keeperName("0"), k.kubeconfig, append([]string{"keep"}, k.flags...)...)
	cmd.Env = append(cmd.Env, k.env...)
	k.p = start(k.j.T, cmd)
}

// kill SIGKILLs the keeper.
func (k *keeperPod) kill() { k.p.kill() }

// keeperReleased waits until the keeper's own StatefulSet is at zero:
// the keeper scales it last, once every type is released.
func (j *job) keeperReleased() {
	j.T.Helper()
	harness.Poller{Interval: 100 * time.Millisecond, Timeout: j.Timeout}.Poll(j.T, "the keeper's StatefulSet at 0", func(ctx context.Context) (bool, string, error) {
		s, err := j.Client.AppsV1().StatefulSets(j.Namespace).Get(ctx, j.keeperName(""), metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		return *s.Spec.Replicas == 0, fmt.Sprintf("replicas %d", *s.Spec.Replicas), nil
	})
}

// supervisor returns tfsupervisor with args as pod's supervisor, talking
// to the control plane through kubeconfig.
func (j *job) supervisor(pod, kubeconfig string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KUBERNETES_SERVICE_HOST=") && !strings.HasPrefix(kv, "TFSUPERVISOR_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "KUBECONFIG="+kubeconfig, "POD_NAME="+pod, "POD_NAMESPACE="+j.Namespace,
		"TFSUPERVISOR_JOB="+j.Name, "TFSUPERVISOR_ROLES="+j.roles, "TFSUPERVISOR_RESTART_BACKOFF=0s",
		"TFSUPERVISOR_TERMINATION_LOG=")
	return cmd
}

// proc is a running tfsupervisor.
type proc struct {
	t      testing.TB
	cmd    *exec.Cmd
	out    *lockedBuffer
	done   chan struct{}
	waited error
}

// start starts cmd; its stderr is kept.
func start(t testing.TB, cmd *exec.Cmd) *proc {
	t.Helper()
	p := &proc{t: t, cmd: cmd, out: newLockedBuffer(), done: make(chan struct{})}
	cmd.Stderr = p.out
	// A supervisor killed at the test's end leaves its training process
	// group, which holds the stderr pipe: Wait then stops waiting for it.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.waited = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() { p.kill() })
	return p
}

// stop sends SIGTERM (in a pod: the pod is going away) and returns the
// exit code.
func (p *proc) stop() int {
	p.t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(time.Minute):
		p.t.Fatalf("tfsupervisor did not stop within a minute of SIGTERM:\n%s", p.out)
	}
	return p.cmd.ProcessState.ExitCode()
}

// kill kills the supervisor (not its training process group).
func (p *proc) kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

// lockedBuffer collects a process's output; lines are announced on lines.
type lockedBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	lines chan string
	part  string
}

func newLockedBuffer() *lockedBuffer { return &lockedBuffer{lines: make(chan string, 1000)} }

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	b.part += string(p)
	for {
		i := strings.IndexByte(b.part, '\n')
		if i < 0 {
			break
		}
		select {
		case b.lines <- b.part[:i]:
		default:
		}
		b.part = b.part[i+1:]
	}
	return len(p), nil
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitLine reads lines until one contains s.
func (b *lockedBuffer) waitLine(t testing.TB, s string) {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case l := <-b.lines:
			if strings.Contains(l, s) {
				return
			}
		case <-timeout:
			t.Fatalf("no line with %q in:\n%s", s, b.String())
		}
	}
}

// waitLines reads lines until each of want has been in one, in any
// order.
func (b *lockedBuffer) waitLines(t testing.TB, want ...string) {
	t.Helper()
	timeout := time.After(time.Minute)
	for len(want) > 0 {
		select {
		case l := <-b.lines:
			want = slices.DeleteFunc(want, func(s string) bool { return strings.Contains(l, s) })
		case <-timeout:
			t.Fatalf("no lines with %q in:\n%s", want, b.String())
		}
	}
}

// readLine reads the first line written to the named pipe at path,
// without its newline.
func readLine(t testing.TB, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	return strings.TrimSpace(line)
}

// readPID reads the pid a training process wrote to the named pipe at
// path.
func readPID(t testing.TB, path string) int {
	t.Helper()
	line := readLine(t, path)
	pid, err := strconv.Atoi(line)
	if err != nil {
		t.Fatalf("pid %q: %v", line, err)
	}
	return pid
}
