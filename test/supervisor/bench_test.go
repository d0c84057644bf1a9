package supervisor

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/pkg/record"
)

// BenchmarkChiefExitToTeardown measures, on the loopback API server, the
// time from the chief's training process exiting to the job's other
// StatefulSets being at 0 replicas, and the supervisor's resident memory
// while it supervises with an API client.
func BenchmarkChiefExitToTeardown(b *testing.B) {
	var total time.Duration
	var rss float64
	n := 0
	for b.Loop() {
		d, r := chiefExit(b)
		total += d
		rss = max(rss, r)
		n++
	}
	b.ReportMetric(float64(total)/float64(n)/1e6, "ms-teardown")
	b.ReportMetric(rss, "MB-rss-api")
}

func chiefExit(b *testing.B) (time.Duration, float64) {
	j := newJob(b, "chief:1:2222,ps:2:2222,worker:2:2222", map[string]int32{"chief": 1, "ps": 2, "worker": 2})
	j.keeper()
	j.pod("j-chief-0")
	dir := b.TempDir()
	ready, release := filepath.Join(dir, "ready"), filepath.Join(dir, "release")
	for _, p := range []string{ready, release} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	cmd := j.supervisor("j-chief-0", j.cp.Kubeconfig(), "run", "--", "sh", "-c", `echo ready > "$READY"; read x < "$RELEASE"`)
	cmd.Env = append(cmd.Env, "READY="+ready, "RELEASE="+release)
	p := start(b, cmd)
	defer p.stop()
	readLine(b, ready)
	rss := vmRSS(p.cmd.Process.Pid)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w, err := j.Client.AppsV1().StatefulSets(j.Namespace).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	rel, err := os.OpenFile(release, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	fmt.Fprintln(rel, "go")
	rel.Close()
	zero := map[string]bool{}
	for ev := range w.ResultChan() {
		if s, ok := ev.Object.(*appsv1.StatefulSet); ok && s.Spec.Replicas != nil && *s.Spec.Replicas == 0 {
			zero[s.Name] = true
		}
		if zero["j-ps"] && zero["j-worker"] {
			return time.Since(start), rss
		}
	}
	b.Fatal("the StatefulSets did not reach 0 replicas")
	return 0, 0
}

func vmRSS(pid int) float64 {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

// BenchmarkRestartWithAPI measures child exit → restarted child with zero
// backoff when every exit is also reported on the pod (the stamp
// under Always, 50 restarts per run; median; see cmd/tfsupervisor's
// BenchmarkRestart).
func BenchmarkRestartWithAPI(b *testing.B) {
	b.ReportMetric(restartGap(b, false).Seconds()*1e3, "ms/restart-api")
}

// BenchmarkRestartRelayed is BenchmarkRestartWithAPI as tfgen renders wrap
// mode: tfsupervisor run holds no credentials and reports each exit over
// the Unix socket to tfsupervisor watch --socket, which writes the pod.
func BenchmarkRestartRelayed(b *testing.B) {
	b.ReportMetric(restartGap(b, true).Seconds()*1e3, "ms/restart-relay")
}

// restartGap returns the median time from a training process's failing
// exit to its restart's main, each exit recorded on the API server.
func restartGap(b *testing.B, relayed bool) time.Duration {
	const cycles = 51
	stamp := filepath.Join(b.TempDir(), "stamp")
	build := exec.Command("go", "build", "-o", stamp, "github.com/tfgen/tfgen/cmd/tfsupervisor/testdata/stamp")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("%v\n%s", err, out)
	}
	var gaps []time.Duration
	for b.Loop() {
		j := newJob(b, "worker:1:2222", map[string]int32{"worker": 1})
		j.pod("j-worker-0")
		file := filepath.Join(b.TempDir(), "stamps")
		// Each run fails (exit 1) and OnFailure restarts it; the last one,
		// past --max-restarts, fails the job and is the supervisor's exit.
		flags := []string{"--restart-policy", "OnFailure", "--max-restarts", strconv.Itoa(cycles - 1)}
		j.keeper(flags...)
		kubeconfig := j.cp.Kubeconfig()
		var sidecar *proc
		if relayed {
			socket := filepath.Join(b.TempDir(), "s.sock")
			sidecar = start(b, j.supervisor("j-worker-0", kubeconfig, append([]string{"watch", "--socket", socket}, flags...)...))
			flags, kubeconfig = append(flags, "--socket", socket), ""
		}
		cmd := j.supervisor("j-worker-0", kubeconfig, append(append([]string{"run"}, flags...), "--", stamp)...)
		cmd.Env = append(cmd.Env, "STAMP_FILE="+file, "STAMP_EXIT=1")
		p := start(b, cmd)
		s := j.WaitStatus("the job to fail", (*record.Status).Ended)
		if code := p.stop(); code != 1 || s.Restarts != cycles-1 {
			b.Fatalf("exit code %d, restarts %d: want 1 after %d restarts\n%s", code, s.Restarts, cycles-1, p.out)
		}
		if sidecar != nil {
			sidecar.stop()
		}
		data, _ := os.ReadFile(file)
		var prevEnd int64
		for i, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var start, end int64
			fmt.Sscan(l, &start, &end)
			if i > 0 {
				gaps = append(gaps, time.Duration(start-prevEnd))
			}
			prevEnd = end
		}
	}
	slices.Sort(gaps)
	return gaps[len(gaps)/2]
}
