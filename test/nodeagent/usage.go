package nodeagent

import (
	"bytes"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Usage is what the pods' processes used, over every pod the agent ran.
type Usage struct {
	// Pods is how many pods ran a process.
	Pods int
	// CPU is the user and system time of the containers' processes (each
	// main process and the children it waited for, from wait4).
	CPU time.Duration
	// CPUByContainer splits CPU by container name.
	CPUByContainer map[string]time.Duration
	// RSS is the sum over pods of each pod's peak resident set (its
	// processes' together, sampled every UsageInterval), in bytes; Named
	// the same for the processes called Config.UsageName alone.
	RSS, Named int64
	// LastStart is when the last container that is not an init container
	// started.
	LastStart time.Time
	// Ends are when containers' processes ended (wait4 returned), by this
	// machine's clock: finer than a container status's finishedAt, which
	// the API keeps to the second.
	Ends []time.Time
	// Peak is the sample at which the processes called Config.UsageName
	// held the most memory together: how many pods ran them then, and
	// their resident and proportional set sizes (Pss divides a page that
	// several processes map, such as a binary's, among them), in bytes.
	Peak struct {
		Pods     int
		RSS, PSS int64
	}
}

// UsageInterval is how often Config.MeasureUsage samples the pods' memory.
// The pods' resident sets are sampled because ru_maxrss cannot say it: a
// child forked by vfork reports the agent's own peak.
const UsageInterval = time.Second

// usage keeps the figures of Usage as pods run.
type usage struct {
	mu        sync.Mutex
	sessions  map[int]types.UID // a running container's session → its pod
	peak      map[types.UID]int64
	peakNamed map[types.UID]int64
	cpu       time.Duration
	cpuBy     map[string]time.Duration
	lastStart time.Time
	ends      []time.Time
	node      struct { // the sample where the named processes held the most
		pods     int
		rss, pss int64
	}
}

func newUsage() *usage {
	return &usage{sessions: map[int]types.UID{}, peak: map[types.UID]int64{}, peakNamed: map[types.UID]int64{}, cpuBy: map[string]time.Duration{}}
}

// started notes a container's session; main says it is not an init container.
func (u *usage) started(sid int, pod types.UID, main bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.sessions[sid] = pod
	if _, ok := u.peak[pod]; !ok {
		u.peak[pod] = 0
	}
	if now := time.Now(); main && now.After(u.lastStart) {
		u.lastStart = now
	}
}

// ended notes the end of container name and adds what its processes used.
func (u *usage) ended(sid int, name string, ru *syscall.Rusage) {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.sessions, sid)
	u.ends = append(u.ends, time.Now())
	if ru != nil {
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		u.cpu += cpu
		u.cpuBy[name] += cpu
	}
}

// sample adds up the resident sets of the running containers' processes
// by pod, and raises each pod's peak.
func (u *usage) sample(name string) {
	u.mu.Lock()
	sessions := make(map[int]types.UID, len(u.sessions))
	for sid, pod := range u.sessions {
		sessions[sid] = pod
	}
	u.mu.Unlock()
	if len(sessions) == 0 {
		return
	}
	rss, named := map[types.UID]int64{}, map[types.UID]int64{}
	namedPods := map[types.UID]bool{}
	var namedPids []int
	var namedRSS int64
	page := int64(os.Getpagesize())
	forEachProcess(UsageInterval/2, func(pid, sid int, comm string) {
		pod, ok := sessions[sid]
		if !ok {
			return
		}
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
		if err != nil {
			return
		}
		f := bytes.Fields(b)
		if len(f) < 2 {
			return
		}
		pages, _ := strconv.ParseInt(string(f[1]), 10, 64)
		rss[pod] += pages * page
		if name != "" && strings.HasPrefix(comm, name) {
			named[pod] += pages * page
			namedPods[pod] = true
			namedRSS += pages * page
			namedPids = append(namedPids, pid)
		}
	})
	u.mu.Lock()
	for pod, n := range rss {
		u.peak[pod] = max(u.peak[pod], n)
		u.peakNamed[pod] = max(u.peakNamed[pod], named[pod])
	}
	peak := namedRSS > u.node.rss
	u.mu.Unlock()
	if !peak {
		return
	}
	// PSS (smaps_rollup walks a process's pages) only at a new peak.
	var namedPSS int64
	for _, pid := range namedPids {
		namedPSS += pss(pid)
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if namedRSS > u.node.rss {
		u.node.pods, u.node.rss, u.node.pss = len(namedPods), namedRSS, namedPSS
	}
}

// pss reads a process's proportional set size in bytes (smaps_rollup).
func pss(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(b) {
		if rest, ok := bytes.CutPrefix(line, []byte("Pss:")); ok {
			kb, _ := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func (u *usage) get() Usage {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := Usage{Pods: len(u.peak), CPU: u.cpu, CPUByContainer: maps.Clone(u.cpuBy), LastStart: u.lastStart, Ends: slices.Clone(u.ends)}
	out.Peak.Pods, out.Peak.RSS, out.Peak.PSS = u.node.pods, u.node.rss, u.node.pss
	for pod, n := range u.peak {
		out.RSS += n
		out.Named += u.peakNamed[pod]
	}
	return out
}

// Usage returns what the pods' processes have used so far; RSS and Named
// are measured only with Config.MeasureUsage.
func (a *Agent) Usage() Usage { return a.usage.get() }

// sampleUsage samples the pods' memory every UsageInterval until the
// agent stops.
func (a *Agent) sampleUsage() {
	defer a.wg.Done()
	t := time.NewTicker(UsageInterval)
	defer t.Stop()
	for {
		select {
		case <-a.ctx.Done():
			return
		case <-t.C:
			a.usage.sample(a.cfg.UsageName)
		}
	}
}
