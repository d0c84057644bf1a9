package anchor

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestRequestedCPU(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	c := func(cpu string) corev1.Container {
		if cpu == "" {
			return corev1.Container{}
		}
		return corev1.Container{Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}
	}
	sidecar := func(cpu string) corev1.Container {
		s := c(cpu)
		s.RestartPolicy = &always
		return s
	}
	for _, tc := range []struct {
		name string
		spec corev1.PodSpec
		want int64
	}{
		{"nothing requested", corev1.PodSpec{Containers: []corev1.Container{c("")}}, 0},
		{"containers add up", corev1.PodSpec{Containers: []corev1.Container{c("1"), c("250m")}}, 1250},
		{"a sidecar adds to them (tfgen's pod)", corev1.PodSpec{InitContainers: []corev1.Container{sidecar("10m")}, Containers: []corev1.Container{c("1")}}, 1010},
		{"an init container asking for more wins", corev1.PodSpec{InitContainers: []corev1.Container{c("3")}, Containers: []corev1.Container{c("1")}}, 3000},
		{"an init container after a sidecar runs beside it", corev1.PodSpec{InitContainers: []corev1.Container{sidecar("500m"), c("1")}, Containers: []corev1.Container{c("1")}}, 1500},
		{"a sidecar after an init container does not", corev1.PodSpec{InitContainers: []corev1.Container{c("1200m"), sidecar("500m")}, Containers: []corev1.Container{c("500m")}}, 1200},
		{"a pod-level request replaces the containers'", corev1.PodSpec{Resources: &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}}, Containers: []corev1.Container{c("1")}}, 4000},
		{"overhead on top", corev1.PodSpec{Overhead: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}, Containers: []corev1.Container{c("1")}}, 1100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := requestedCPU(&tc.spec); got != tc.want {
				t.Errorf("requestedCPU: %dm, want %dm", got, tc.want)
			}
		})
	}
}

func TestHolds(t *testing.T) {
	for _, tc := range []struct {
		name string
		node string
		ph   corev1.PodPhase
		want bool
	}{
		{"pending, not bound (gated or unscheduled)", "", corev1.PodPending, false},
		{"bound, pending", "n", corev1.PodPending, true},
		{"running", "n", corev1.PodRunning, true},
		{"succeeded", "n", corev1.PodSucceeded, false},
		{"failed", "n", corev1.PodFailed, false},
	} {
		p := &corev1.Pod{Spec: corev1.PodSpec{NodeName: tc.node}, Status: corev1.PodStatus{Phase: tc.ph}}
		if got := holds(p); got != tc.want {
			t.Errorf("%s: holds %t, want %t", tc.name, got, tc.want)
		}
	}
}

func TestHeldAfter(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	hs := []podHold{
		// Worker 0 ended at 3 s and its pod held 1 CPU until 10 s.
		{name: "w-0", cpu: 1000, spans: []span{{at(0), at(10)}}},
		// Worker 1 ended at 20 s; its pod, 1.01 CPU, was Succeeded at 20.5 s.
		{name: "w-1", cpu: 1010, spans: []span{{at(0), at(20.5)}}},
		// Worker 2 ended at 3 s: its pod ended at 4 s, was made again and
		// bound from 6 s to 8 s (not gated), then made again gated (never
		// bound: no span).
		{name: "w-2", cpu: 1000, spans: []span{{at(0), at(4)}}},
		{name: "w-2", cpu: 1000, spans: []span{{at(6), at(8)}}},
		{name: "w-2", cpu: 1000},
		// Worker 3 ended at 5 s and holds still (counted to 30 s).
		{name: "w-3", cpu: 2000, since: at(1)},
		// No end known: not counted.
		{name: "keeper", cpu: 10, spans: []span{{at(0), at(100)}}},
	}
	ends := map[string]time.Time{"w-0": at(3), "w-1": at(20), "w-2": at(3), "w-3": at(5)}
	h := heldAfter(hs, ends, at(30))
	want := 7*1.0 + 0.5*1.01 + (1+2)*1.0 + 25*2.0
	if math.Abs(h.cpu-want) > 1e-9 {
		t.Errorf("cpu: %v node-s, want %v", h.cpu, want)
	}
	if h.replicas != 4 || h.open != 1 {
		t.Errorf("replicas %d, open %d; want 4, 1", h.replicas, h.open)
	}
	if h.longest() != 25 || h.median() != 7 || h.over(2*time.Second) != 3 {
		t.Errorf("seconds %v: longest %v, median %v, over 2 s %d; want 25, 7, 3", h.seconds, h.longest(), h.median(), h.over(2*time.Second))
	}
}

func TestTrainingEnds(t *testing.T) {
	dir := t.TempDir()
	write := func(node, pod, container, text string) {
		p := filepath.Join(dir, node, "ns", pod, container+".log")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a", "w-0", "tensorflow", "=== nodeagent: start 0\nhello\nanchor-trained 1796181945.979797981\n=== nodeagent: exit 0\n")
	write("a", "w-1", "tensorflow", "still training\n")
	write("a", "w-2", "tensorflow", "anchor-trained 1796181950.5\n")
	// The same replica's pod, made again on another node, trained again.
	write("b", "w-2", "tensorflow", "anchor-trained 1796181949.25\n")
	ends, again, err := trainingEnds([]string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}, "ns")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]time.Time{"w-0": time.Unix(1796181945, 979797981), "w-2": time.Unix(1796181949, 250000000)}
	if len(ends) != len(want) || !slices.Equal(again, []string{"w-2"}) {
		t.Fatalf("ends %v, again %v; want %v, [w-2]", ends, again, want)
	}
	for pod, w := range want {
		if !ends[pod].Equal(w) {
			t.Errorf("%s: %v, want %v", pod, ends[pod], w)
		}
	}
	write("a", "w-3", "tensorflow", "anchor-trained soon\n")
	if _, _, err := trainingEnds([]string{filepath.Join(dir, "a")}, "ns"); err == nil {
		t.Error("a marker without a time: no error")
	}
}

func TestMadeSummary(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	hs := []podHold{
		{name: "j-worker-0", made: at(1), bound: at(2)},
		{name: "j-keeper-0", made: at(1.5), bound: at(3)},
		{name: "j-worker-1", made: at(4), gated: true, bound: at(6)},
		{name: "j-worker-0", made: at(5), gated: true},
	}
	want := "4 pods made, 1 of them again under a name made before; 2 gated when made, 1 of those bound later (lifted); " +
		"the last made at 5.0 s, the last bound at 6.0 s; j-keeper-0 made at 1.5 s, bound at 3.0 s"
	if got := madeSummary(hs, t0); got != want {
		t.Errorf("madeSummary:\n got %s\nwant %s", got, want)
	}
}

func TestSetsSummary(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	set := func(gen, observed int64, replicas int32, gated bool) *appsv1.StatefulSet {
		s := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "j-worker", Generation: gen},
			Spec: appsv1.StatefulSetSpec{Replicas: &replicas}, Status: appsv1.StatefulSetStatus{ObservedGeneration: observed}}
		if gated {
			s.Spec.Template.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "g"}}
		}
		return s
	}
	s := &sets{changes: map[string][]setChange{}}
	s.seen(set(1, 0, 4, false), at(0.1))
	s.seen(set(1, 1, 4, false), at(0.5))
	s.seen(set(2, 1, 4, true), at(5))
	s.seen(set(3, 1, 2, true), at(20))
	s.seen(set(3, 3, 2, true), at(31))
	want := "j-worker: made at 0.1 s; gated at 5.0 s, seen by its controller at 31.0 s; to 2 replicas at 20.0 s, seen by its controller at 31.0 s"
	if got := s.summary(t0); got != want {
		t.Errorf("summary:\n got %s\nwant %s", got, want)
	}
}
