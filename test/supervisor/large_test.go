package supervisor

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/pkg/operate"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/test/harness"
)

// large is a job with many replicas, each a real tfsupervisor on a pod of
// its own, talking to the API server as the job's ServiceAccount with the
// job's Role (the rules of templates/rbac.yaml). Its waits take
// largeTimeout at most, and retry the API server's timeouts until then.
type large struct {
	*job
	dir        string
	kubeconfig string
	procs      []*proc
	before     apiCounts
	cpuBefore  time.Duration // the API server's and etcd's

	mu       sync.Mutex
	stopping bool     // stopAll has begun
	early    []string // the output of supervisors that exited before it
}

// largeTimeout bounds each wait of a large run.
const largeTimeout = 5 * time.Minute

func newLarge(tb testing.TB, roles string, replicas map[string]int32) *large {
	tb.Helper()
	j := newJob(tb, roles, replicas)
	j.Timeout = largeTimeout
	ctx := tb.Context()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "j-tfjob"}}
	if _, err := j.Client.CoreV1().ServiceAccounts(j.Namespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		tb.Fatal(err)
	}
	var sets []string
	for t := range replicas {
		sets = append(sets, j.Name+"-"+t)
	}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "j-tfjob"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{j.Name}, Verbs: []string{"get", "update", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{record.LogsName(j.Name)}, Verbs: []string{"get", "update"}},
		{APIGroups: []string{"apps"}, Resources: []string{"statefulsets/scale"}, ResourceNames: append(slices.Clone(sets), j.keeperName("")), Verbs: []string{"get", "patch"}},
		{APIGroups: []string{"apps"}, Resources: []string{"statefulsets"}, ResourceNames: sets, Verbs: []string{"get", "patch"}},
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch", "patch"}},
		{APIGroups: []string{"events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create"}},
	}}
	if _, err := j.Client.RbacV1().Roles(j.Namespace).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		tb.Fatal(err)
	}
	logs := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: record.LogsName(j.Name)}}
	if _, err := j.Client.CoreV1().ConfigMaps(j.Namespace).Create(ctx, logs, metav1.CreateOptions{}); err != nil {
		tb.Fatal(err)
	}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "j-tfjob"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "j-tfjob"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "j-tfjob", Namespace: j.Namespace}}}
	if _, err := j.Client.RbacV1().RoleBindings(j.Namespace).Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		tb.Fatal(err)
	}
	kc, err := j.cp.ServiceAccountKubeconfig(ctx, j.Namespace, "j-tfjob")
	if err != nil {
		tb.Fatal(err)
	}
	for t, n := range replicas {
		for i := range n {
			j.pod(fmt.Sprintf("%s-%s-%d", j.Name, t, i))
		}
	}
	l := &large{job: j, dir: tb.TempDir(), kubeconfig: kc}
	tb.Cleanup(func() {
		if !tb.Failed() {
			return
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		tb.Logf("%d supervisors exited before they were stopped", len(l.early))
		for _, out := range l.early[:min(len(l.early), 3)] {
			tb.Logf("one of them:\n%s", out)
		}
	})
	return l
}

// keeper makes the job's keeper and starts it with flags, as the job's
// ServiceAccount.
func (l *large) keeper(flags ...string) *keeperPod {
	l.T.Helper()
	k := l.makeKeeper(l.kubeconfig, nil, flags...)
	l.startKeeper(k)
	return k
}

// startKeeper starts k among the run's supervisors: stopAll stops it and
// counts its CPU with theirs.
func (l *large) startKeeper(k *keeperPod) {
	k.start()
	l.procs = append(l.procs, k.p)
}

// fifo makes a named pipe in the run's directory and opens it for reading
// and writing, so that neither side's open blocks.
func (l *large) fifo(name string) *os.File {
	p := filepath.Join(l.dir, name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		l.T.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		l.T.Fatal(err)
	}
	return f
}

// awaitLines reads n lines from f.
func (l *large) awaitLines(f *os.File, n int, what string) {
	l.T.Helper()
	done := make(chan int, 1)
	go func() {
		r := bufio.NewReader(f)
		k := 0
		for k < n {
			if _, err := r.ReadString('\n'); err != nil {
				break
			}
			k++
		}
		done <- k
	}()
	select {
	case k := <-done:
		if k < n {
			l.T.Fatalf("%s: %d of %d", what, k, n)
		}
	case <-time.After(largeTimeout):
		l.T.Fatalf("%s: gave up", what)
	}
}

// start starts pod's supervisor running script under sh, with the run's
// directory as $DIR, and flags.
func (l *large) start(pod, script string, flags ...string) {
	args := append(append([]string{"run"}, flags...), "--", "sh", "-c", script)
	cmd := l.supervisor(pod, l.kubeconfig, args...)
	cmd.Env = append(cmd.Env, "DIR="+l.dir, "READY="+filepath.Join(l.dir, "ready"), "GO="+filepath.Join(l.dir, "go"))
	p := start(l.T, cmd)
	l.procs = append(l.procs, p)
	go func() {
		<-p.done
		l.mu.Lock()
		defer l.mu.Unlock()
		if !l.stopping && !l.T.Failed() { // not killed at the test's end
			l.early = append(l.early, pod+": "+p.out.String())
		}
	}()
}

// stopAll stops every supervisor, as the pods' deletion would, and
// returns the CPU time they used.
func (l *large) stopAll() time.Duration {
	l.mu.Lock()
	l.stopping = true
	l.mu.Unlock()
	for _, p := range l.procs {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
	}
	var cpu time.Duration
	for _, p := range l.procs {
		select {
		case <-p.done:
			cpu += p.cmd.ProcessState.UserTime() + p.cmd.ProcessState.SystemTime()
		case <-time.After(time.Minute):
			l.T.Fatalf("a supervisor did not stop within a minute:\n%s", p.out)
		}
	}
	return cpu
}

// mtime returns when the training processes wrote file name of the
// run's directory (an empty file written by the shell, no process).
func (l *large) mtime(name string) time.Time {
	l.T.Helper()
	fi, err := os.Stat(filepath.Join(l.dir, name))
	if err != nil {
		l.T.Fatal(err)
	}
	return fi.ModTime()
}

// pods returns the names of the job's pods of type t.
func (l *large) pods(t string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%s-%d", l.Name, t, i)
	}
	return out
}

// noPodDeleted fails unless every replica's pod is there, none being
// deleted: the training processes stopped by themselves.
func (l *large) noPodDeleted(want int) {
	l.T.Helper()
	ctx, cancel := context.WithTimeout(l.T.Context(), largeTimeout)
	defer cancel()
	var list *corev1.PodList
	if err := harness.Retry(ctx, func(ctx context.Context) (err error) {
		list, err = l.Client.CoreV1().Pods(l.Namespace).List(ctx, metav1.ListOptions{LabelSelector: operate.LabelJobName + "=" + l.Name})
		return err
	}); err != nil {
		l.T.Fatal(err)
	}
	n := 0
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil {
			n++
		}
	}
	if n != want {
		l.T.Errorf("%d pods left undeleted, want all %d", n, want)
	}
}

// apiCounts are counts of the API server's requests.
type apiCounts struct {
	writes, conflicts float64
	// by is every write's count by resource, verb and code.
	by map[string]float64
}

// counts reads the API server's request counters: every create, update,
// patch and delete, and every 409 Conflict. Nothing but the supervisors
// writes while a large job runs (no controller-manager here), but for the
// stand-in StatefulSet controller (observer), whose writes of
// statefulsets/status are left out.
func (l *large) counts() apiCounts {
	l.T.Helper()
	ctx, cancel := context.WithTimeout(l.T.Context(), largeTimeout)
	defer cancel()
	var raw []byte
	if err := harness.Retry(ctx, func(ctx context.Context) (err error) {
		raw, err = l.Client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
		return err
	}); err != nil {
		l.T.Fatal(err)
	}
	c := apiCounts{by: map[string]float64{}}
	label := func(labels, name string) string {
		_, v, _ := strings.Cut(labels, name+`="`)
		v, _, _ = strings.Cut(v, `"`)
		return v
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(line, "apiserver_request_total{") {
			continue
		}
		labels, value, _ := strings.Cut(line[len("apiserver_request_total{"):], "} ")
		v, err := strconv.ParseFloat(value, 64)
		if err != nil || label(labels, "resource") == "statefulsets" && label(labels, "subresource") == "status" {
			continue
		}
		switch {
		case strings.Contains(labels, `verb="POST"`), strings.Contains(labels, `verb="PUT"`), strings.Contains(labels, `verb="PATCH"`),
			strings.Contains(labels, `verb="DELETE"`), strings.Contains(labels, `verb="APPLY"`):
			c.writes += v
			c.by[label(labels, "resource")+"/"+label(labels, "subresource")+" "+label(labels, "verb")+" "+label(labels, "code")] += v
		}
		// An Event's 409 is AlreadyExists: a create retried after a timeout
		// that had landed, not a conflict.
		if strings.Contains(labels, `code="409"`) && label(labels, "resource") != "events" {
			c.conflicts += v
		}
	}
	return c
}

// largeResult is what a large run measured.
type largeResult struct {
	// wall: from starting the supervisors to the job's end in its status.
	wall time.Duration
	// afterLast: from the last training process's start (plus the
	// training time, for allWorkers) to the job's end in its status.
	afterLast time.Duration
	// writesPerReplica: the supervisors' API writes (pod patches, Events,
	// status writes, scale patches) over the run, per replica.
	writesPerReplica float64
	// conflicts: 409s over the run.
	conflicts float64
	// stopped: from the deciding exit to the last training process
	// stopped (decidingExit only).
	stopped time.Duration
	// exact: the final status is exact.
	exact bool
	// cpuPerReplica: the CPU the supervisors, the API server and etcd
	// used over the run, per replica (on this machine's cores).
	cpuPerReplica time.Duration
}

// measure opens the window of API counts.
func (l *large) measure() {
	l.before = l.counts()
	l.cpuBefore = l.cp.CPUTime("kube-apiserver") + l.cp.CPUTime("etcd")
}

// closeWindow stops the supervisors and fills in the API counts per
// replica of n.
func (l *large) closeWindow(r *largeResult, n int) {
	cpu := l.stopAll()
	after := l.counts()
	server := l.cp.CPUTime("kube-apiserver") + l.cp.CPUTime("etcd") - l.cpuBefore
	r.cpuPerReplica = (cpu + server) / time.Duration(n)
	l.T.Logf("CPU of %d supervisors %v (%v each), of the API server and etcd %v (%v per replica); wall %v",
		n, cpu.Round(time.Millisecond), (cpu / time.Duration(n)).Round(time.Microsecond),
		server.Round(time.Millisecond), (server / time.Duration(n)).Round(time.Microsecond), r.wall.Round(time.Millisecond))
	r.writesPerReplica = (after.writes - l.before.writes) / float64(n)
	r.conflicts = after.conflicts - l.before.conflicts
	var by []string
	for k, v := range after.by {
		if d := v - l.before.by[k]; d > 0 {
			by = append(by, fmt.Sprintf("%s: %.0f", k, d))
		}
	}
	slices.Sort(by)
	l.T.Logf("API writes of %d replicas: %s", n, strings.Join(by, ", "))
}

// allWorkers runs a job of n workers under AllWorkers and a parameter
// server; each worker trains for train and exits 0 (every failEvery-th
// fails once first, then trains again: OnFailure restarts it). The job
// must succeed with every worker counted, and the parameter server must
// stop by itself (no pod is deleted).
func allWorkers(tb testing.TB, n int, train time.Duration, failEvery int, beside ...func(*large)) largeResult {
	l := newLarge(tb, fmt.Sprintf("ps:1:2222,worker:%d:2222", n), map[string]int32{"ps": 1, "worker": int32(n)})
	for _, f := range beside {
		f(l)
	}
	flags := []string{"--success-policy", "AllWorkers", "--restart-policy", "OnFailure"}
	worker := fmt.Sprintf(`i=${POD_NAME##*-}; f="$DIR/$POD_NAME"
if [ %d -gt 0 ] && [ $((i %% %d)) -eq 0 ] && [ ! -e "$f" ]; then : > "$f"; exit 1; fi
: > "$DIR/started-$POD_NAME"; sleep %.3f; exit 0`, failEvery, max(failEvery, 1), train.Seconds())
	wantRestarts := int32(0)
	if failEvery > 0 {
		wantRestarts = int32((n + failEvery - 1) / failEvery)
	}
	k := l.makeKeeper(l.kubeconfig, nil, flags...)
	l.measure()
	began := time.Now()
	l.startKeeper(k)
	l.start("j-ps-0", `trap 'exit 143' TERM; sleep 100000 & wait $!`, flags...)
	for _, pod := range l.pods("worker", n) {
		l.start(pod, worker, flags...)
	}
	s := l.WaitStatus("the job to end", (*record.Status).Ended)
	ended := time.Now()
	res := largeResult{wall: ended.Sub(began)}
	var last time.Time
	for _, pod := range l.pods("worker", n) {
		if t := l.mtime("started-" + pod); t.After(last) {
			last = t
		}
	}
	res.afterLast = ended.Sub(last.Add(train))
	l.WaitRecords("the parameter server to stop", []string{"j-ps-0"}, func(r record.Replica) bool {
		return r.State == record.StateStopped && r.Reason == "JobEnded"
	})
	l.noPodDeleted(n + 1)
	succeeded := 0
	for _, pod := range l.pods("worker", n) {
		if l.Record(pod).State == record.StateSucceeded {
			succeeded++
		}
	}
	rs := s.ReplicaStatuses["Worker"]
	res.exact = s.IsTrue(record.JobSucceeded) && rs != nil && rs.Succeeded == int32(n) && rs.Active == 0 && rs.Failed == 0 &&
		s.Succeeded["worker"].String() == fmt.Sprintf("0-%d", n-1) && s.Restarts == wantRestarts && succeeded == n
	if !res.exact {
		raw, _ := s.Marshal()
		tb.Errorf("status not exact: %d of %d workers' records Succeeded, want %d restarts; status %s", succeeded, n, wantRestarts, raw)
	}
	l.closeWindow(&res, n+1)
	return res
}

// decidingExit runs a chief and n workers that train until stopped; once
// every worker runs, the chief exits 0. Every worker's training process
// must stop by itself, no pod being deleted; stopped is the time from the
// chief's exit to the last worker's.
func decidingExit(tb testing.TB, n int) largeResult {
	l := newLarge(tb, fmt.Sprintf("chief:1:2222,worker:%d:2222", n), map[string]int32{"chief": 1, "worker": int32(n)})
	ready, gate := l.fifo("ready"), l.fifo("go")
	defer ready.Close()
	k := l.makeKeeper(l.kubeconfig, nil)
	l.measure()
	began := time.Now()
	l.startKeeper(k)
	l.start("j-chief-0", `exec 3<"$GO"; read x <&3; : > "$DIR/chief"; exit 0`)
	worker := `trap 'echo "$POD_NAME: stopped"; : > "$DIR/$POD_NAME"; exit 143' TERM; echo ready > "$READY"; sleep 100000 & wait $!`
	for _, pod := range l.pods("worker", n) {
		l.start(pod, worker)
	}
	l.awaitLines(ready, n, "workers running")
	// A job ends long after its start: the chief exits once the API server
	// has taken every worker's first record (a thousand supervisors
	// starting at once queue their writes for a minute on 2 cores).
	l.WaitRecords("every worker's record Running", l.pods("worker", n), func(r record.Replica) bool {
		return r.State == record.StateRunning
	})
	gate.Close() // the chief reads EOF and exits
	s := l.WaitStatus("the job to end", (*record.Status).Ended)
	res := largeResult{wall: time.Since(began)}
	l.WaitRecords("every worker to stop", l.pods("worker", n), func(r record.Replica) bool {
		return r.State == record.StateStopped && r.Reason == "JobEnded"
	})
	l.noPodDeleted(n + 1)
	chief, last := l.mtime("chief"), time.Time{}
	var after []time.Duration
	for _, pod := range l.pods("worker", n) {
		t := l.mtime(pod)
		last = later(last, t)
		after = append(after, t.Sub(chief))
	}
	slices.Sort(after)
	tb.Logf("workers stopped after the chief's exit: median %v, 90th percentile %v, last %v",
		after[len(after)/2].Round(time.Millisecond), after[len(after)*9/10].Round(time.Millisecond), after[len(after)-1].Round(time.Millisecond))
	res.stopped = last.Sub(chief)
	res.exact = s.IsTrue(record.JobSucceeded) && s.ReplicaStatuses["Chief"].Succeeded == 1
	if !res.exact {
		tb.Errorf("status %+v: want Succeeded by the chief", s)
	}
	// Each stopped worker's last words are on its pod, and the keeper
	// keeps MaxLogTails of them, in worker order.
	want := min(n, record.MaxLogTails)
	var kept map[string]string
	defer func() {
		if tb.Failed() {
			tb.Logf("kept: %d replicas' output, worker-0's %q; the keeper said:\n%s", len(kept), kept["worker-0"], k.p.out.String())
		}
	}()
	l.WaitLogs(fmt.Sprintf("%d workers' output kept", want), func(data map[string]string) bool {
		kept = data
		// (sh may add "Terminated", of its sleep)
		return len(data) == want && strings.HasPrefix(data["worker-0"], "j-worker-0: stopped\n")
	})
	l.closeWindow(&res, n+1)
	return res
}

// massFailure runs n workers under ExitCode with a backoff limit; once
// every worker runs, all are killed at the same moment (137, retryable).
// Exactly limit restarts may be granted, and the job fails at the next.
func massFailure(tb testing.TB, n int, limit int) largeResult {
	l := newLarge(tb, fmt.Sprintf("worker:%d:2222", n), map[string]int32{"worker": int32(n)})
	ready, gate := l.fifo("ready"), l.fifo("go")
	defer ready.Close()
	flags := []string{"--restart-policy", "ExitCode", "--backoff-limit", strconv.Itoa(limit)}
	worker := `if [ -e "$DIR/$POD_NAME" ]; then echo again >> "$DIR/again"; trap 'exit 0' TERM; sleep 100000 & wait $!; exit 0; fi
: > "$DIR/$POD_NAME"; exec 3<"$GO"; echo ready > "$READY"; read x <&3; kill -9 $$`
	k := l.makeKeeper(l.kubeconfig, nil, flags...)
	l.measure()
	began := time.Now()
	l.startKeeper(k)
	for _, pod := range l.pods("worker", n) {
		l.start(pod, worker, flags...)
	}
	l.awaitLines(ready, n, "workers running")
	gate.Close()
	s := l.WaitStatus("the job to end", (*record.Status).Ended)
	res := largeResult{wall: time.Since(began)}
	l.closeWindow(&res, n)
	b, _ := os.ReadFile(filepath.Join(l.dir, "again"))
	again := strings.Count(string(b), "again")
	c := s.Condition(record.JobFailed)
	res.exact = c != nil && c.Status == record.ConditionTrue && c.Reason == "BackoffLimitExceeded" && s.Restarts == int32(limit) && again <= limit
	if !res.exact {
		raw, _ := s.Marshal()
		tb.Errorf("after %d workers failed at once: %d ran again; status %s; want exactly %d restarts and BackoffLimitExceeded", n, again, raw, limit)
	}
	return res
}

// TestLargeJob runs 200 real supervisors at a time against the API server:
// a job of 200 workers under AllWorkers (every 10th failing once) must end
// with an exact status and few conflicts; a chief's exit must stop 200
// workers' training processes without any pod being deleted; and 200
// workers failing at once must get exactly backoffLimit restarts.
func TestLargeJob(t *testing.T) {
	const n = 200
	t.Run("AllWorkers", func(t *testing.T) {
		r := allWorkers(t, n, 2*time.Second, 10)
		t.Logf("%d workers: %v, %.2f writes per replica, %.0f conflicts", n, r.wall.Round(time.Millisecond), r.writesPerReplica, r.conflicts)
		if r.conflicts > n/10 {
			t.Errorf("%.0f conflicts, want at most %d", r.conflicts, n/10)
		}
		if r.writesPerReplica > 5 { // 4, and the restart of every 10th
			t.Errorf("%.2f API writes per replica, want at most 5", r.writesPerReplica)
		}
	})
	t.Run("DecidingExit", func(t *testing.T) {
		r := decidingExit(t, n)
		t.Logf("%d workers stopped %v after the chief's exit", n, r.stopped.Round(time.Millisecond))
		if r.conflicts > n/10 {
			t.Errorf("%.0f conflicts, want at most %d", r.conflicts, n/10)
		}
	})
	t.Run("MassFailure", func(t *testing.T) {
		r := massFailure(t, n, 10)
		if r.conflicts > n/10 {
			t.Errorf("%.0f conflicts, want at most %d", r.conflicts, n/10)
		}
	})
}

// BenchmarkLargeJob runs large jobs at each N of $TFGEN_LARGE_N (default
// 100,500,1000) on the loopback API server: N workers under AllWorkers
// that train 3 s each, and a chief whose exit stops N workers. It reports
// the supervisors' API writes per replica, the 409 conflicts, the seconds
// beyond the training time, the time from the deciding exit to every
// training process stopped, and whether the status was exact.
func BenchmarkLargeJob(b *testing.B) {
	const train = 3 * time.Second
	for _, n := range largeNs(b, "100,500,1000") {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			for b.Loop() {
				all := allWorkers(b, n, train, 0)
				stop := decidingExit(b, n)
				exact := 0.0
				if all.exact && stop.exact {
					exact = 1
				}
				b.ReportMetric(all.writesPerReplica, "writes/replica")
				b.ReportMetric(all.conflicts+stop.conflicts, "conflicts")
				b.ReportMetric((all.wall - train).Seconds(), "s-beyond-training")
				b.ReportMetric(all.afterLast.Seconds(), "s-after-last-trains")
				b.ReportMetric(float64(stop.stopped.Milliseconds()), "ms-stop-all")
				b.ReportMetric(exact, "exact")
				b.ReportMetric(float64(all.cpuPerReplica.Microseconds())/1000, "ms-cpu/replica")
			}
		})
	}
}

// largeNs returns the job sizes of $TFGEN_LARGE_N (comma-separated), or
// of def when it is not set.
func largeNs(b *testing.B, def string) []int {
	b.Helper()
	ns := os.Getenv("TFGEN_LARGE_N")
	if ns == "" {
		ns = def
	}
	var out []int
	for _, f := range strings.Split(ns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			b.Fatalf("TFGEN_LARGE_N: %q is not a count", f)
		}
		out = append(out, n)
	}
	return out
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
