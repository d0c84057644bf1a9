package supervisor

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/test/controlplane"
)

// bin is the tfsupervisor binary under test.
var bin string

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
	code := controlplane.Main(m, controlplane.Options{})
	os.RemoveAll(dir)
	os.Exit(code)
}

// job is a job's objects in a fresh namespace: the record ConfigMap, and
// a StatefulSet and pods per replica type of roles ("chief:1:2222,...").
type job struct {
	t     testing.TB
	cp    *controlplane.ControlPlane
	cs    kubernetes.Interface
	ns    string
	name  string
	roles string
}

func newJob(t testing.TB, roles string, replicas map[string]int32) *job {
	t.Helper()
	cp := controlplane.Shared(t)
	cs := cp.Client()
	ctx := t.Context()
	n, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "sup-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.CoreV1().Namespaces().Delete(context.Background(), n.Name, metav1.DeleteOptions{}) })
	j := &job{t: t, cp: cp, cs: cs, ns: n.Name, name: "j", roles: roles}
	// No controller-manager here: the ServiceAccount admission needs the
	// namespace's default ServiceAccount made by hand.
	if _, err := cs.CoreV1().ServiceAccounts(j.ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: j.name, Labels: map[string]string{"app.kubernetes.io/instance": j.name}},
		Data: map[string]string{"spec.json": "{}"}}
	if _, err := cs.CoreV1().ConfigMaps(j.ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for typ, n := range replicas {
		labels := map[string]string{"training.kubeflow.org/job-name": j.name, "training.kubeflow.org/replica-type": typ}
		sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: j.name + "-" + typ},
			Spec: appsv1.StatefulSetSpec{Replicas: &n, ServiceName: j.name + "-" + typ,
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "tensorflow", Image: "tf"}}}}}}
		if _, err := cs.AppsV1().StatefulSets(j.ns).Create(ctx, sts, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return j
}

// pod creates pod name of the job, bound to a node, with the training
// container and the tfsupervisor sidecar, and the labels a StatefulSet's
// pods get.
func (j *job) pod(name string) *corev1.Pod {
	j.t.Helper()
	p, err := j.cs.CoreV1().Pods(j.ns).Create(j.t.Context(), j.podObject(name), metav1.CreateOptions{})
	if err != nil {
		j.t.Fatal(err)
	}
	return p
}

func (j *job) podObject(name string) *corev1.Pod {
	rest := strings.TrimPrefix(name, j.name+"-")
	typ := rest[:strings.LastIndexByte(rest, '-')]
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name,
		Labels: map[string]string{"training.kubeflow.org/job-name": j.name, "training.kubeflow.org/replica-type": typ}},
		Spec: corev1.PodSpec{NodeName: "node-1",
			Containers: []corev1.Container{{Name: "tensorflow", Image: "tf"}, {Name: "tfsupervisor", Image: "sup"}}}}
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
	cmd.Env = append(cmd.Env, "KUBECONFIG="+kubeconfig, "POD_NAME="+pod, "POD_NAMESPACE="+j.ns,
		"TFSUPERVISOR_JOB="+j.name, "TFSUPERVISOR_ROLES="+j.roles, "TFSUPERVISOR_RESTART_BACKOFF=0s",
		"TFSUPERVISOR_TERMINATION_LOG=")
	return cmd
}

// status reads the job's status from the record.
func (j *job) status() *record.Status {
	j.t.Helper()
	cm, err := j.cs.CoreV1().ConfigMaps(j.ns).Get(j.t.Context(), j.name, metav1.GetOptions{})
	if err != nil {
		j.t.Fatal(err)
	}
	s, err := record.Parse(cm.Data)
	if err != nil {
		j.t.Fatal(err)
	}
	return s
}

// waitStatus watches the record until cond holds (a minute at most).
func (j *job) waitStatus(what string, cond func(*record.Status) bool) *record.Status {
	j.t.Helper()
	ctx, cancel := context.WithTimeout(j.t.Context(), time.Minute)
	defer cancel()
	w, err := j.cs.CoreV1().ConfigMaps(j.ns).Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", j.name).String()})
	if err != nil {
		j.t.Fatal(err)
	}
	defer w.Stop()
	for ev := range w.ResultChan() {
		if cm, ok := ev.Object.(*corev1.ConfigMap); ok && ev.Type != watch.Deleted {
			if s, err := record.Parse(cm.Data); err == nil && cond(s) {
				return s
			}
		}
	}
	j.t.Fatalf("waiting for %s: gave up; status %+v", what, j.status())
	return nil
}

// waitStatusFor is waitStatus with a timeout of its own.
func (j *job) waitStatusFor(d time.Duration, what string, cond func(*record.Status) bool) *record.Status {
	j.t.Helper()
	var s *record.Status
	j.waitConfigMap(d, j.name, what, func(data map[string]string) bool {
		var err error
		s, err = record.Parse(data)
		return err == nil && cond(s)
	})
	return s
}

// waitConfigMap watches ConfigMap name until cond holds for its data, d at
// most.
func (j *job) waitConfigMap(d time.Duration, name, what string, cond func(data map[string]string) bool) {
	j.t.Helper()
	ctx, cancel := context.WithTimeout(j.t.Context(), d)
	defer cancel()
	for {
		w, err := j.cs.CoreV1().ConfigMaps(j.ns).Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()})
		if err == nil { // else the API server is busy: watch again
			for ev := range w.ResultChan() {
				if cm, ok := ev.Object.(*corev1.ConfigMap); ok && ev.Type != watch.Deleted && cond(cm.Data) {
					w.Stop()
					return
				}
			}
			w.Stop()
		}
		if ctx.Err() != nil {
			j.t.Fatalf("waiting for %s: gave up after %v; status %+v", what, d, j.status())
		}
	}
}

// record returns the replica's record on pod, as its supervisor wrote it.
func (j *job) record(pod string) record.Replica {
	j.t.Helper()
	p, err := j.cs.CoreV1().Pods(j.ns).Get(j.t.Context(), pod, metav1.GetOptions{})
	if err != nil {
		j.t.Fatal(err)
	}
	r, _ := record.ReplicaFromAnnotations(p.Annotations)
	return r
}

// waitRecords watches the job's pods until cond holds for the records of
// every pod named in pods (a minute at most, or d if longer).
func (j *job) waitRecords(d time.Duration, what string, pods []string, cond func(record.Replica) bool) {
	j.t.Helper()
	ctx, cancel := context.WithTimeout(j.t.Context(), max(d, time.Minute))
	defer cancel()
	want := map[string]bool{}
	for _, p := range pods {
		want[p] = true
	}
	check := func(p *corev1.Pod) {
		if r, _ := record.ReplicaFromAnnotations(p.Annotations); want[p.Name] && cond(r) {
			delete(want, p.Name)
		}
	}
	for len(want) > 0 {
		var list *corev1.PodList
		if err := retrying(ctx, func(ctx context.Context) (err error) {
			list, err = j.cs.CoreV1().Pods(j.ns).List(ctx, metav1.ListOptions{})
			return err
		}); err != nil {
			j.t.Fatalf("waiting for %s: %v; %d pods left", what, err, len(want))
		}
		for i := range list.Items {
			check(&list.Items[i])
		}
		if len(want) == 0 {
			return
		}
		// Watch from the list; a watch that fails or ends lists again.
		w, err := j.cs.CoreV1().Pods(j.ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
		if err == nil {
			for ev := range w.ResultChan() {
				if p, ok := ev.Object.(*corev1.Pod); ok {
					check(p)
					if len(want) == 0 {
						break
					}
				}
			}
			w.Stop()
		}
		if ctx.Err() != nil && len(want) > 0 {
			j.t.Fatalf("waiting for %s: gave up; %d pods left", what, len(want))
		}
	}
}

// retrying calls call until it succeeds or ctx ends, pausing between
// attempts: a saturated API server times requests out (the large jobs'
// 1,000 supervisors), which says nothing of what the test checks.
func retrying(ctx context.Context, call func(context.Context) error) error {
	delay := 100 * time.Millisecond
	for {
		err := call(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(delay):
		}
		delay = min(2*delay, 2*time.Second)
	}
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

// replicas returns each StatefulSet's spec.replicas.
func (j *job) replicas() map[string]int32 {
	j.t.Helper()
	list, err := j.cs.AppsV1().StatefulSets(j.ns).List(j.t.Context(), metav1.ListOptions{})
	if err != nil {
		j.t.Fatal(err)
	}
	out := map[string]int32{}
	for _, s := range list.Items {
		out[strings.TrimPrefix(s.Name, j.name+"-")] = *s.Spec.Replicas
	}
	return out
}

// waitReplicas watches the StatefulSets until their replicas are want (a
// minute at most).
func (j *job) waitReplicas(want map[string]int32) {
	j.t.Helper()
	ctx, cancel := context.WithTimeout(j.t.Context(), time.Minute)
	defer cancel()
	list, err := j.cs.AppsV1().StatefulSets(j.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		j.t.Fatal(err)
	}
	got := map[string]int32{}
	for _, s := range list.Items {
		got[strings.TrimPrefix(s.Name, j.name+"-")] = *s.Spec.Replicas
	}
	w, err := j.cs.AppsV1().StatefulSets(j.ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		j.t.Fatal(err)
	}
	defer w.Stop()
	for !maps.Equal(got, want) {
		ev, ok := <-w.ResultChan()
		if !ok {
			j.t.Fatalf("waiting for replicas %v: gave up at %v", want, got)
		}
		if s, ok := ev.Object.(*appsv1.StatefulSet); ok {
			got[strings.TrimPrefix(s.Name, j.name+"-")] = *s.Spec.Replicas
		}
	}
}

// eventReasons lists the reasons of the events.k8s.io/v1 Events about pod.
func (j *job) eventReasons(pod string) []string {
	j.t.Helper()
	list, err := j.cs.EventsV1().Events(j.ns).List(j.t.Context(), metav1.ListOptions{})
	if err != nil {
		j.t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		if e.Regarding.Name == pod {
			out = append(out, e.Reason)
		}
	}
	return out
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
