package node

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// TestNothingLeftRunning: a finished replica holds nothing. While a job
// runs, a StatefulSet gives back the pods of its highest replicas once
// they finished; once the job succeeded, every StatefulSet goes to zero
// and no pod is left, under cleanPodPolicy Running (the default) and All.
func TestNothingLeftRunning(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		spec   jobSpec
		during map[string]int32 // replicas while the job waits for gate-0
		pods   []string         // pods then
	}{
		{
			// AllWorkers: worker 2 finishes first and its pod goes; the
			// parameter server serves until the job ends.
			name: "AllWorkers",
			spec: jobSpec{name: "allw", successPolicy: "AllWorkers", exits: []string{"ps=block"},
				replicas: []replica{
					{kind: "PS", n: 1, policy: "Never"},
					{kind: "Worker", n: 3, policy: "OnFailure", args: []string{"--wait-for", "worker-0:gate-0,worker-1:gate-0"}},
				}},
			during: map[string]int32{"ps": 1, "worker": 2},
			pods:   []string{"allw-ps-0", "allw-worker-0", "allw-worker-1"},
		},
		{
			// The workers finish before the chief decides: their pods go
			// while it runs.
			name: "chief",
			spec: jobSpec{name: "chiefw", runPolicy: job.RunPolicy{CleanPodPolicy: job.CleanAll},
				replicas: []replica{
					{kind: "Chief", n: 1, policy: "ExitCode", args: []string{"--wait-for", "worker-0,worker-1,gate-0"}},
					{kind: "Worker", n: 2, policy: "OnFailure"},
				}},
			during: map[string]int32{"chief": 1, "worker": 0},
			pods:   []string{"chiefw-chief-0"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := getCluster(t)
			r := c.startJob(t, tc.spec, nil)
			r.WaitReplicas(tc.during)
			r.WaitPods(tc.pods...)
			if s := r.Status(); s.Ended() {
				t.Fatalf("status %s: the job ended before its gate opened", r.StatusJSON())
			}
			r.open("gate-0")
			s := r.WaitStatus("the job to end", (*record.Status).Ended)
			ended := time.Now()
			if !s.IsTrue(record.JobSucceeded) {
				t.Fatalf("the job failed: %s", r.StatusJSON())
			}
			want := map[string]int32{}
			for typ := range tc.during {
				want[typ] = 0
			}
			r.WaitReplicas(want)
			r.WaitPods()
			t.Logf("no pod left %v after the job ended", time.Since(ended).Round(time.Millisecond))
			for replica, n := range r.runs() {
				if n != 1 {
					t.Errorf("%s ran %d times, want once", replica, n)
				}
			}
		})
	}
}

// TestKeeperPodDeletedMidTeardown: under cleanPodPolicy All the job's end
// releases every replica type at once, and the keeper's own StatefulSet
// (J-keeper) waits until the PS has said how it ended; the PS ignores
// SIGTERM, so its pod takes its grace period to go. Meanwhile the
// keeper's pod is deleted: the StatefulSet makes a new one, whose keeper
// finishes the teardown. No pod is left, and nothing trained again.
func TestKeeperPodDeletedMidTeardown(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	r := c.startJob(t, jobSpec{name: "mid", runPolicy: job.RunPolicy{CleanPodPolicy: job.CleanAll}, exits: []string{"ps=deaf"},
		replicas: []replica{
			{kind: "Chief", n: 1, policy: "ExitCode", args: []string{"--wait-for", "ps-0,gate-0"}},
			{kind: "PS", n: 1, policy: "Never", edits: []testjob.Option{testjob.Pod(func(p *corev1.PodSpec) { p.TerminationGracePeriodSeconds = new(int64(20)) })}},
		}}, nil)
	r.waitReport("mid-ps-0")
	// The PS trains when the job ends, in the record the keeper reads.
	r.WaitRecord("mid-ps-0", func(rep record.Replica) bool { return rep.State == record.StateRunning })
	r.open("gate-0")
	s := r.WaitStatus("the replicas released", func(s *record.Status) bool { return slices.Equal(s.Teardown, []string{"chief", "ps"}) })
	if !s.IsTrue(record.JobSucceeded) {
		t.Fatalf("status %s: want Succeeded", r.StatusJSON())
	}
	pods := c.cp.Client().CoreV1().Pods(r.Namespace)
	keeper := r.Name + "-" + supervise.KeeperType + "-0"
	old, err := pods.Get(t.Context(), keeper, getOpts)
	if err != nil {
		t.Fatal(err)
	}
	if err := pods.Delete(t.Context(), keeper, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "a new keeper pod", func(ctx context.Context) (bool, string, error) {
		p, err := pods.Get(ctx, keeper, getOpts)
		if apierrors.IsNotFound(err) {
			return false, "none", nil
		}
		return err == nil && p.UID != old.UID, "the old one", err
	})
	r.WaitReplicas(map[string]int32{"chief": 0, "ps": 0})
	r.WaitPods()
	poll(t, "the keeper released", func(ctx context.Context) (bool, string, error) {
		_, err := pods.Get(ctx, keeper, getOpts)
		if apierrors.IsNotFound(err) {
			return true, "", nil
		}
		return false, "its pod", err
	})
	if s := r.Status(); !slices.Equal(s.Teardown, []string{"chief", "ps", supervise.KeeperType}) || !s.IsTrue(record.JobSucceeded) {
		t.Errorf("status %s: want Succeeded, the replicas released, then the keeper", r.StatusJSON())
	}
	if diff := cmp.Diff(map[string]int{"chief-0": 1, "ps-0": 1}, r.runs()); diff != "" {
		t.Errorf("runs per replica (-want +got):\n%s", diff)
	}
}

// TestReleasedPodsEndByThemselves: once the job gives its pods back, each
// ends by itself (Succeeded) and holds nothing, whenever its StatefulSet
// gets to delete it. The job's keeper is refused the StatefulSets' scale
// here, so that nothing deletes the pods first: every pod that trained
// ends, the StatefulSet controller makes each again, and those new pods,
// which found the job over, do not train and stay (they would only be
// made again). Once the keeper may scale again it releases them.
func TestReleasedPodsEndByThemselves(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	ns := c.namespace(t, "job", nil)
	phases := watchDeletions(t, c, ns)
	r := c.render(t, jobSpec{name: "ends", successPolicy: "AllWorkers", exits: []string{"ps=block"},
		replicas: []replica{
			{kind: "PS", n: 1, policy: "Never"},
			{kind: "Worker", n: 2, policy: "OnFailure", args: []string{"--wait-for", "ps-0,worker-0:gate-0,worker-1:gate-0"}},
		}}, ns)
	r.applied = r.apply()
	roles := c.cp.Client().RbacV1().Roles(ns)
	role, err := roles.Get(t.Context(), "ends-tfjob", getOpts)
	if err != nil {
		t.Fatal(err)
	}
	refused := role.DeepCopy()
	refused.Rules = slices.DeleteFunc(refused.Rules, func(rule rbacv1.PolicyRule) bool { return slices.Contains(rule.Resources, "statefulsets/scale") })
	if _, err := roles.Update(t.Context(), refused, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	r.waitReport("ends-worker-1")
	r.open("gate-0")
	if s := r.WaitStatus("the job to end", (*record.Status).Ended); !s.IsTrue(record.JobSucceeded) {
		t.Fatalf("the job failed: %s", r.StatusJSON())
	}
	first := map[string]string{} // each pod's first UID
	poll(t, "every pod that trained ended, and made again", func(ctx context.Context) (bool, string, error) {
		pods, err := r.Pods(ctx)
		if err != nil {
			return false, "", err
		}
		for name, seen := range phases() {
			if _, ok := first[name]; !ok {
				first[name] = seen[0].uid
			}
		}
		var again []string
		for _, p := range pods {
			if uid, ok := first[p.Name]; ok && uid != string(p.UID) && p.Status.Phase == corev1.PodRunning {
				again = append(again, p.Name)
			}
		}
		return len(again) == 3, fmt.Sprintf("made again and running: %v; deleted: %v", again, phases()), nil
	})
	for name, seen := range phases() {
		if seen[0].phase != corev1.PodSucceeded {
			t.Errorf("pod %s (the one that trained) was %s when its deletion began; want Succeeded, ended by itself", name, seen[0].phase)
		}
		// Its sidecar ends with the training container (watch --socket
		// --complete), which the kubelet must not take for a crash.
		if seen[0].sidecarRestarts != 0 {
			t.Errorf("pod %s (the one that trained): its tfsupervisor sidecar restarted %d times; want it ended once, with the pod", name, seen[0].sidecarRestarts)
		}
	}
	now, err := roles.Get(t.Context(), "ends-tfjob", getOpts)
	if err != nil {
		t.Fatal(err)
	}
	now.Rules = role.Rules
	if _, err := roles.Update(t.Context(), now, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	r.WaitReplicas(map[string]int32{"ps": 0, "worker": 0})
	r.WaitPods()
	if diff := cmp.Diff(map[string]int{"ps-0": 1, "worker-0": 1, "worker-1": 1}, r.runs()); diff != "" {
		t.Errorf("runs per replica (-want +got):\n%s", diff)
	}
}

// deletion is a pod's phase when its deletion began, and the restarts of
// its sidecars (init containers) by then.
type deletion struct {
	uid             string
	phase           corev1.PodPhase
	sidecarRestarts int32
}

// watchDeletions follows the pods of namespace ns from now on, and
// returns a function that gives, by pod name, the pods whose deletion has
// begun so far, in order, with their phase at that moment.
func watchDeletions(t *testing.T, c *cluster, ns string) func() map[string][]deletion {
	t.Helper()
	var mu sync.Mutex
	seen := map[string]bool{}
	out := map[string][]deletion{}
	seePods(t, c, ns, func(p *corev1.Pod) {
		if p.DeletionTimestamp == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if !seen[string(p.UID)] {
			seen[string(p.UID)] = true
			d := deletion{uid: string(p.UID), phase: p.Status.Phase}
			for _, st := range p.Status.InitContainerStatuses {
				d.sidecarRestarts += st.RestartCount
			}
			out[p.Name] = append(out[p.Name], d)
		}
	})
	return func() map[string][]deletion {
		mu.Lock()
		defer mu.Unlock()
		cp := make(map[string][]deletion, len(out))
		for k, v := range out {
			cp[k] = slices.Clone(v)
		}
		return cp
	}
}

// seePods calls see with every version of every pod of namespace ns the
// API server tells of from now on (a deleted pod's last one with a
// deletion timestamp), until the test ends.
func seePods(t *testing.T, c *cluster, ns string, see func(*corev1.Pod)) {
	t.Helper()
	w, err := c.cp.Client().CoreV1().Pods(ns).Watch(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	go func() {
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			if ev.Type == watch.Deleted && p.DeletionTimestamp == nil {
				now := metav1.Now()
				p.DeletionTimestamp = &now
			}
			see(p)
		}
	}()
}
