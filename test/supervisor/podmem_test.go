package supervisor

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tfgen/tfgen/pkg/record"
)

// BenchmarkPodMemory measures what tfgen's supervisors hold in a wrap-mode
// pod as tfgen renders it: tfsupervisor watch --socket (the native
// sidecar, with the API client) and tfsupervisor run --socket (the
// wrap-only build the image installs in the training container) around
// the training process (here a sleep, not counted), on the loopback API
// server, and what the job's keeper holds in its own pod (tfsupervisor
// keep, which follows the job's pods and writes its status). A job of a
// chief and two workers: a worker's pod and the keeper's are measured.
// Figures in MB, once both replicas run and the supervisors have been
// quiet for podMemSettle(): VmRSS per process and per pod, VmHWM (the
// peak since start) per pod, and the pod's resident memory split into
// anonymous pages (Go heap, stacks, runtime) and file pages (the
// binaries' text and data as mapped), from /proc/PID/status; and the CPU
// time the pod's supervisors used from their start to then (ms-cpu-pod,
// from each thread's /proc/PID/task/TID/schedstat). Each figure is the
// largest of the runs.

func BenchmarkPodMemory(b *testing.B) {
	var keeper procMem
	var plain podMem
	for b.Loop() {
		k, p := podMemory(b, nil)
		keeper, plain = keeper.max(k), plain.max(p)
	}
	keeper.report(b, "keeper")
	plain.report(b, "worker")
}

// podMemSettle is how long the pods are left alone before they are
// measured, unless TFGEN_PODMEM_SETTLE says otherwise (a Go duration:
// 130s, say, to see them after the runtime's periodic garbage
// collection, every two minutes in a process that allocates little).
func podMemSettle() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("TFGEN_PODMEM_SETTLE")); err == nil {
		return d
	}
	return 5 * time.Second
}

// procMem is one process's resident memory in MB, and the CPU time it
// used since it started, in ms.
type procMem struct {
	rss, hwm, anon, file, cpu float64
}

func (m procMem) max(o procMem) procMem {
	return procMem{max(m.rss, o.rss), max(m.hwm, o.hwm), max(m.anon, o.anon), max(m.file, o.file), max(m.cpu, o.cpu)}
}

// report reports m as the figures of a pod of one supervisor.
func (m procMem) report(b *testing.B, pod string) {
	b.ReportMetric(m.rss, "MB-rss-pod-"+pod)
	b.ReportMetric(m.hwm, "MB-hwm-pod-"+pod)
	b.ReportMetric(m.anon, "MB-anon-pod-"+pod)
	b.ReportMetric(m.file, "MB-file-pod-"+pod)
	b.ReportMetric(m.cpu, "ms-cpu-pod-"+pod)
}

// podMem is a pod's two supervisors.
type podMem struct {
	wrap, sidecar procMem
}

func (m podMem) max(o podMem) podMem {
	return podMem{m.wrap.max(o.wrap), m.sidecar.max(o.sidecar)}
}

func (m podMem) report(b *testing.B, pod string) {
	b.ReportMetric(m.wrap.rss, "MB-rss-wrap-"+pod)
	b.ReportMetric(m.sidecar.rss, "MB-rss-sidecar-"+pod)
	b.ReportMetric(m.wrap.rss+m.sidecar.rss, "MB-rss-pod-"+pod)
	b.ReportMetric(m.wrap.hwm+m.sidecar.hwm, "MB-hwm-pod-"+pod)
	b.ReportMetric(m.wrap.anon+m.sidecar.anon, "MB-anon-pod-"+pod)
	b.ReportMetric(m.wrap.file+m.sidecar.file, "MB-file-pod-"+pod)
	b.ReportMetric(m.wrap.cpu+m.sidecar.cpu, "ms-cpu-pod-"+pod)
}

// podMemory runs the keeper and two replicas' pods, their supervisors
// with env, and measures the keeper and the worker.
func podMemory(b *testing.B, env []string) (keeper procMem, plain podMem) {
	j := newJob(b, "chief:1:2222,worker:2:2222", map[string]int32{"chief": 1, "worker": 2})
	k := j.keeperEnv(env)
	type pod struct {
		name              string
		sidecar, training *proc
	}
	pods := []*pod{{name: "j-chief-0"}, {name: "j-worker-1"}}
	for _, p := range pods {
		j.pod(p.name)
		socket := filepath.Join(b.TempDir(), "s.sock")
		typ := strings.Split(p.name, "-")[1]
		sidecar := j.supervisor(p.name, j.cp.Kubeconfig(), "watch", "--socket", socket, "--replica-type", typ)
		sidecar.Env = append(sidecar.Env, env...)
		p.sidecar = start(b, sidecar)
		wrap := j.supervisor(p.name, "", "run", "--socket", socket, "--replica-type", typ, "--", "sleep", "600")
		wrap.Path, wrap.Env = wrapBin, append(wrap.Env, env...)
		p.training = start(b, wrap)
	}
	for _, p := range pods {
		deadline := time.Now().Add(time.Minute)
		for j.Record(p.name).State != record.StateRunning {
			if time.Now().After(deadline) {
				b.Fatalf("%s is not Running after a minute:\n%s\n%s", p.name, p.sidecar.out, p.training.out)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	time.Sleep(podMemSettle())
	measure := func(p *pod) podMem {
		return podMem{wrap: procMemory(b, p.training.cmd.Process.Pid), sidecar: procMemory(b, p.sidecar.cmd.Process.Pid)}
	}
	keeper, plain = procMemory(b, k.p.cmd.Process.Pid), measure(pods[1])
	if dir := os.Getenv("TFGEN_PODMEM_DUMP"); dir != "" {
		for _, p := range pods {
			_ = os.WriteFile(filepath.Join(dir, p.name+".sidecar.log"), []byte(p.sidecar.out.String()), 0o644)
			_ = os.WriteFile(filepath.Join(dir, p.name+".wrap.log"), []byte(p.training.out.String()), 0o644)
		}
		_ = os.WriteFile(filepath.Join(dir, j.keeperName("0")+".log"), []byte(k.p.out.String()), 0o644)
	}
	for _, p := range pods {
		_ = p.training.cmd.Process.Signal(syscall.SIGTERM)
		_ = p.sidecar.cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, p := range pods {
		p.training.stop()
		p.sidecar.stop()
	}
	k.p.stop()
	return keeper, plain
}

// procMemory reads pid's VmRSS and VmHWM (/proc/PID/status) and its
// resident anonymous and file pages (RssAnon, RssFile).
func procMemory(b *testing.B, pid int) procMem {
	var m procMem
	if dir := os.Getenv("TFGEN_PODMEM_DUMP"); dir != "" {
		// For a closer look: each process's mappings, as they are.
		for _, f := range []string{"smaps", "status", "cmdline"} {
			data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, f))
			_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.%s", pid, f)), data, 0o644)
		}
	}
	fields := func(file string, f func(key string, mb float64)) {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, file))
		if err != nil {
			b.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if fs := strings.Fields(line); len(fs) >= 3 && fs[2] == "kB" {
				kb, _ := strconv.ParseFloat(fs[1], 64)
				f(fs[0], kb/1024)
			}
		}
	}
	// The time its threads ran on a CPU, in ns: the first field of each
	// one's schedstat (Go's threads do not exit).
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	for _, task := range tasks {
		if stat, err := os.ReadFile(task); err == nil {
			if f := strings.Fields(string(stat)); len(f) > 0 {
				ns, _ := strconv.ParseFloat(f[0], 64)
				m.cpu += ns / 1e6
			}
		}
	}
	fields("status", func(key string, mb float64) {
		switch key {
		case "VmRSS:":
			m.rss = mb
		case "VmHWM:":
			m.hwm = mb
		case "RssAnon:":
			m.anon = mb
		case "RssFile:":
			m.file = mb
		}
	})
	return m
}
