package node

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// workerCPU is what each worker of the HoldsNothing jobs requests.
var workerCPU = resource.MustParse("50m")

// holdsNothingJob: 6 workers (no chief: worker 0 decides), of which 1, 3
// and 4 finish at once while 0, 2 and 5 train until gate-0 opens.
func holdsNothingJob(name string, clean job.CleanPodPolicy) jobSpec {
	return jobSpec{name: name, runPolicy: job.RunPolicy{CleanPodPolicy: clean},
		replicas: []replica{{kind: "Worker", n: 6, policy: "OnFailure",
			args: []string{"--wait-for", "worker-0:gate-0,worker-2:gate-0,worker-5:gate-0"},
			edits: []testjob.Option{testjob.Container(func(c *corev1.Container) {
				c.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: workerCPU}
			})}}}}
}

// TestFinishedReplicaHoldsNothing: workers 1, 3 and 4 of six finish while
// 0, 2 and 5 train. Under cleanPodPolicy Running and All, the node's
// allocated requests as the scheduler sees them (the pods bound to it
// that have not ended, read from the API) come to exclude 1, 3 and 4
// while the others train: their pods ended and were made again gated
// (tfgen.io/finished), never bound. Each finished worker ran once, and
// the job succeeds with every worker counted once.
func TestFinishedReplicaHoldsNothing(t *testing.T) {
	t.Parallel()
	for _, clean := range []job.CleanPodPolicy{job.CleanRunning, job.CleanAll} {
		t.Run(string(clean), func(t *testing.T) {
			t.Parallel()
			c := getCluster(t)
			r := c.startJob(t, holdsNothingJob("held"+strings.ToLower(string(clean)), clean), nil)
			r.waitFinishedGated("worker-1", "worker-3", "worker-4")
			r.checkAllocated([]string{"worker-0", "worker-2", "worker-5"}, []string{"worker-1", "worker-3", "worker-4"})
			r.open("gate-0")
			r.checkSucceeded()
		})
	}
}

// TestEvictFinishedReplica: evicting (the eviction API, as kubectl drain
// does) the pod of finished worker 3 succeeds; the pod made again is
// gated and holds nothing, worker 3 never trains again, and the job
// succeeds with it counted once.
func TestEvictFinishedReplica(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	r := c.startJob(t, holdsNothingJob("evictdone", job.CleanRunning), nil)
	r.waitFinishedGated("worker-1", "worker-3", "worker-4")
	pod := r.Name + "-worker-3"
	before := r.podUIDs()[pod]
	pods := r.Client.CoreV1().Pods(r.Namespace)
	if err := pods.EvictV1(t.Context(), &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: pod, Namespace: r.Namespace}}); err != nil {
		t.Fatalf("evict %s: %v", pod, err)
	}
	r.WaitPodsWhere(pod+" made again, gated", func(all map[string]*corev1.Pod) (bool, string) {
		p := all[pod]
		if p == nil {
			return false, "no pod"
		}
		return string(p.UID) != before && gatedUnbound(p), fmt.Sprintf("uid %s (was %s), gates %v, node %q", p.UID, before, p.Spec.SchedulingGates, p.Spec.NodeName)
	})
	r.checkAllocated([]string{"worker-0", "worker-2", "worker-5"}, []string{"worker-1", "worker-3", "worker-4"})
	r.open("gate-0")
	r.checkSucceeded()
}

// waitFinishedGated waits until each of replicas has recorded its success
// and its pod is one made again, gated and not bound to any node.
func (r *run) waitFinishedGated(replicas ...string) {
	r.T.Helper()
	names := make([]string, len(replicas))
	for i, rep := range replicas {
		names[i] = r.Name + "-" + rep
	}
	st := r.WaitStatus("the finished replicas counted", func(s *record.Status) bool {
		for _, rep := range replicas {
			typ, idx, _ := strings.Cut(rep, "-")
			i, err := strconv.Atoi(idx)
			if err != nil || !s.HasSucceeded(typ, int32(i)) {
				return false
			}
		}
		return true
	})
	if st.Ended() {
		r.T.Fatalf("status %s: the job ended before gate-0 opened", r.StatusJSON())
	}
	r.WaitPodsWhere(fmt.Sprintf("pods %v gated, unbound", names), func(all map[string]*corev1.Pod) (bool, string) {
		var waiting []string
		for _, n := range names {
			if p := all[n]; p == nil || !gatedUnbound(p) {
				waiting = append(waiting, n+": "+describe(p))
			}
		}
		return len(waiting) == 0, strings.Join(waiting, "; ")
	})
}

// gatedUnbound reports whether pod p waits at tfgen's gate, bound nowhere.
func gatedUnbound(p *corev1.Pod) bool {
	return p.Spec.NodeName == "" && slices.ContainsFunc(p.Spec.SchedulingGates, func(g corev1.PodSchedulingGate) bool {
		return g.Name == supervise.FinishedGate
	})
}

func describe(p *corev1.Pod) string {
	if p == nil {
		return "no pod"
	}
	return fmt.Sprintf("%s on %q, gates %v", p.Status.Phase, p.Spec.NodeName, p.Spec.SchedulingGates)
}

// checkAllocated reads the node's allocated requests as the scheduler
// counts them (every pod bound to it that has not ended): the replicas
// training are among them, the finished ones not; it logs the job's share
// of the node's CPU.
func (r *run) checkAllocated(training, finished []string) {
	r.T.Helper()
	nodes := r.WaitNodes(r.Name + "-" + training[0])
	node := nodes[r.Name+"-"+training[0]]
	list, err := r.Client.CoreV1().Pods("").List(context.Background(), metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("spec.nodeName", node).String()})
	if err != nil {
		r.T.Fatal(err)
	}
	held := map[string]resource.Quantity{}
	for _, p := range list.Items {
		if p.Namespace != r.Namespace || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		var cpu resource.Quantity
		for _, c := range p.Spec.Containers {
			cpu.Add(c.Resources.Requests[corev1.ResourceCPU])
		}
		held[strings.TrimPrefix(p.Name, r.Name+"-")] = cpu
	}
	for _, rep := range training {
		if _, ok := held[rep]; !ok {
			r.T.Errorf("%s trains but holds nothing on node %s: %v", rep, node, slices.Sorted(maps.Keys(held)))
		}
	}
	for _, rep := range finished {
		if cpu, ok := held[rep]; ok {
			r.T.Errorf("%s finished but holds %s CPU on node %s", rep, cpu.String(), node)
		}
	}
	var total resource.Quantity
	for _, q := range held {
		total.Add(q)
	}
	r.T.Logf("job %s holds %s CPU on node %s: %v", r.Name, total.String(), node, slices.Sorted(maps.Keys(held)))
}

// checkSucceeded waits for the job's end and checks it succeeded with
// each of its six workers run once and counted once.
func (r *run) checkSucceeded() {
	r.T.Helper()
	want := &record.ReplicaStatus{Succeeded: 6}
	s := r.WaitStatus("every worker counted", func(s *record.Status) bool {
		return s.Ended() && s.ReplicaStatuses["Worker"] != nil && *s.ReplicaStatuses["Worker"] == *want
	})
	if !s.IsTrue(record.JobSucceeded) {
		r.T.Fatalf("status %s: want Succeeded", r.StatusJSON())
	}
	runs := r.runs()
	for i := range 6 {
		if n := runs[fmt.Sprintf("worker-%d", i)]; n != 1 {
			r.T.Errorf("worker-%d ran %d times, want once (runs %v)", i, n, runs)
		}
	}
	r.WaitReplicas(map[string]int32{"worker": 0})
	r.WaitPods()
}
