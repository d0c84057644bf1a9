package anchor

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// What a finished replica holds: for each pod of a replica whose training
// process has ended, the CPU it requests (as the scheduler counts it:
// requestedCPU) times the seconds from that end until the pod holds
// nothing (holds), summed over the replica's pods (a StatefulSet makes a
// replica's pod again under the same name) and over the replicas. The
// end comes from the node's clock (trainingEnds), the rest from the API
// server, as the pods' watch delivers it.

// trainedMarker starts the line a worker of a shape with a script prints,
// with the node's clock (date's seconds and nanoseconds), once its
// training process has ended: no API object says that end to the
// millisecond (a container's finishedAt keeps seconds), and for tfgen no
// container's end says it at all (its training container is the wrapper,
// which outlives the training process).
const trainedMarker = "anchor-trained"

// holds says whether a pod holds what it requests on a node: bound to one
// and not terminal. A scheduling-gated pod is never bound (the scheduler
// does not bind it); a pod the API server no longer has holds nothing.
func holds(p *corev1.Pod) bool { return p.Spec.NodeName != "" && !terminal(p) }

// requestedCPU is the CPU a pod requests in millicores, as the scheduler
// counts it (k8s.io/component-helpers/resource.PodRequests from the
// spec): the containers' requests and the sidecars' (restartable init
// containers) added up, or the largest init container's with the
// sidecars started before it if that is more; a pod-level request
// instead when there is one; the pod's overhead on top.
func requestedCPU(spec *corev1.PodSpec) int64 {
	cpu := func(c *corev1.Container) int64 { return c.Resources.Requests.Cpu().MilliValue() }
	var total, sidecars, initMax int64
	for i := range spec.Containers {
		total += cpu(&spec.Containers[i])
	}
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		use := cpu(c)
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			total += use
			sidecars += use
			use = sidecars
		} else {
			use += sidecars
		}
		initMax = max(initMax, use)
	}
	total = max(total, initMax)
	if spec.Resources != nil {
		if q, ok := spec.Resources.Requests[corev1.ResourceCPU]; ok {
			total = q.MilliValue()
		}
	}
	if q, ok := spec.Overhead[corev1.ResourceCPU]; ok {
		total += q.MilliValue()
	}
	return total
}

// span is a time a pod held what it requests.
type span struct{ from, to time.Time }

// podHold is what one pod (one UID) held, as the pods' watch saw it,
// and when it was made and bound.
type podHold struct {
	name  string
	cpu   int64     // millicores: requestedCPU
	since time.Time // holding since; zero while it holds nothing
	spans []span    // the times it held, ended
	made  time.Time // first seen
	gated bool      // scheduling-gated when first seen
	bound time.Time // first seen bound to a node; zero if never
}

// held is what the pods of finished replicas held after their training
// ended.
type held struct {
	// replicas is how many replicas' training ended.
	replicas int
	// cpu is the node-seconds of requested CPU (cores × seconds).
	cpu float64
	// seconds are, per replica, the seconds any of its pods held
	// something after its end (not weighted by the request).
	seconds []float64
	// open counts the pods still holding when it was measured: their
	// time runs to then.
	open int
}

// heldAfter sums what the pods in hs held after their replica's training
// ended (ends, by pod name); a pod holding still is counted to now.
func heldAfter(hs []podHold, ends map[string]time.Time, now time.Time) held {
	h := held{replicas: len(ends)}
	per := map[string]float64{}
	for _, p := range hs {
		end, ok := ends[p.name]
		if !ok {
			continue
		}
		spans := p.spans
		if !p.since.IsZero() {
			spans = append(slices.Clone(spans), span{p.since, now})
			h.open++
		}
		for _, s := range spans {
			from := s.from
			if end.After(from) {
				from = end
			}
			if d := s.to.Sub(from).Seconds(); d > 0 {
				per[p.name] += d
				h.cpu += d * float64(p.cpu) / 1000
			}
		}
	}
	for name := range ends {
		h.seconds = append(h.seconds, per[name])
	}
	slices.Sort(h.seconds)
	return h
}

// median is the median replica's seconds.
func (h held) median() float64 {
	if len(h.seconds) == 0 {
		return 0
	}
	return h.seconds[len(h.seconds)/2]
}

// longest is the longest a finished replica held anything.
func (h held) longest() float64 {
	if len(h.seconds) == 0 {
		return 0
	}
	return h.seconds[len(h.seconds)-1]
}

// over counts the replicas that held something longer than d after their
// end.
func (h held) over(d time.Duration) int {
	n := 0
	for _, s := range h.seconds {
		if s > d.Seconds() {
			n++
		}
	}
	return n
}

// trainingEnds reads, from the containers' logs of namespace ns in the
// node agents' log directories (LOGDIR/NAMESPACE/POD/CONTAINER.log), when
// each replica's training process ended: the first trainedMarker line of
// its pods, by pod name. again names the replicas that printed it more
// than once (that trained again after they had finished).
func trainingEnds(logDirs []string, ns string) (ends map[string]time.Time, again []string, err error) {
	ends = map[string]time.Time{}
	seen := map[string]int{}
	for _, dir := range logDirs {
		logs, err := filepath.Glob(filepath.Join(dir, ns, "*", "*.log"))
		if err != nil {
			return nil, nil, err
		}
		for _, path := range logs {
			pod := filepath.Base(filepath.Dir(path))
			times, err := markers(path)
			if err != nil {
				return nil, nil, err
			}
			for _, t := range times {
				seen[pod]++
				if e, ok := ends[pod]; !ok || t.Before(e) {
					ends[pod] = t
				}
			}
		}
	}
	for pod, n := range seen {
		if n > 1 {
			again = append(again, pod)
		}
	}
	slices.Sort(again)
	return ends, again, nil
}

// markers reads the times of a log's trainedMarker lines.
func markers(path string) ([]time.Time, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []time.Time
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), trainedMarker+" ")
		if !ok {
			continue
		}
		t, err := parseUnixNano(strings.TrimSpace(rest))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, t)
	}
	return out, sc.Err()
}

// parseUnixNano reads date's "%s.%N": seconds and nanoseconds since the
// epoch.
func parseUnixNano(s string) (time.Time, error) {
	secs, frac, _ := strings.Cut(s, ".")
	sec, err := strconv.ParseInt(secs, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s %q: %w", trainedMarker, s, err)
	}
	var nsec int64
	if frac != "" {
		if len(frac) > 9 {
			frac = frac[:9]
		}
		if nsec, err = strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64); err != nil {
			return time.Time{}, fmt.Errorf("%s %q: %w", trainedMarker, s, err)
		}
	}
	return time.Unix(sec, nsec), nil
}

// podLogs is the output of every container of pod, on every node (the
// log directories logDirs), each under a header.
func podLogs(logDirs []string, ns, pod string) string {
	var b strings.Builder
	for _, dir := range logDirs {
		logs, _ := filepath.Glob(filepath.Join(dir, ns, pod, "*.log"))
		for _, path := range logs {
			out, err := os.ReadFile(path)
			if err != nil {
				out = []byte(err.Error())
			}
			fmt.Fprintf(&b, "--- %s ---\n%s", path, out)
		}
	}
	return b.String()
}

// madeSummary says how the pods in hs came (times from start, the apply):
// how many were made, how many under a name made before (a StatefulSet
// making a replica's pod again), how many were gated when made and how
// many of those were bound later (their gate lifted), when the last was
// made and bound, and when the job's keeper pod (a name ending in
// -keeper-0: tfgen's) was.
func madeSummary(hs []podHold, start time.Time) string {
	var made, gated, lifted, again int
	var lastMade, lastBound time.Time
	names := map[string]bool{}
	var keeper string
	slices.SortFunc(hs, func(a, b podHold) int { return a.made.Compare(b.made) })
	secs := func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return fmt.Sprintf("%.1f s", t.Sub(start).Seconds())
	}
	for _, h := range hs {
		made++
		if names[h.name] {
			again++
		}
		names[h.name] = true
		if h.gated {
			gated++
			if !h.bound.IsZero() {
				lifted++
			}
		}
		if h.made.After(lastMade) {
			lastMade = h.made
		}
		if h.bound.After(lastBound) {
			lastBound = h.bound
		}
		if strings.HasSuffix(h.name, "-keeper-0") && keeper == "" {
			keeper = fmt.Sprintf("; %s made at %s, bound at %s", h.name, secs(h.made), secs(h.bound))
		}
	}
	return fmt.Sprintf("%d pods made, %d of them again under a name made before; %d gated when made, %d of those bound later (lifted); the last made at %s, the last bound at %s%s",
		made, again, gated, lifted, secs(lastMade), secs(lastBound), keeper)
}
