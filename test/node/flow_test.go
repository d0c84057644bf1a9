package node

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/operate"
	"github.com/tfgen/tfgen/pkg/record"
)

// TestWrapJobSucceeds: a wrap-mode job on the real kubelet. containerd
// mounts the tfsupervisor image as a volume (the default render for
// Kubernetes 1.36 and later), or for an older target (--kube-version 1.35)
// the init container copies tfsupervisor (65532) into the shared volume;
// the training containers run it wrapping the workload as the image's
// user, the chief succeeds after every other replica reported, and the
// job with it; every replica found the others by their Service DNS names
// (TF_CONFIG's addresses resolve through CoreDNS and connect). `tfgen
// status --watch` follows the job to its end and exits 0.
func TestWrapJobSucceeds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, volume string
		flags        []string
	}{
		{"image", "image", nil},
		{"copy", "copy", []string{"--kube-version", "1.35"}},
		// The replicas find each other (--connect) by the addresses their
		// supervisors publish: the Services select no pod.
		{"endpoints-pod", "image", []string{"--endpoints", "pod"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			wrapJobSucceeds(t, tc.volume, tc.flags)
		})
	}
}

func wrapJobSucceeds(t *testing.T, volume string, flags []string) {
	c := getCluster(t)
	r := c.startJob(t, jobSpec{name: "wrap", runPolicy: job.RunPolicy{CleanPodPolicy: job.CleanAll}, exits: []string{"ps=block"}, flags: flags,
		replicas: []replica{
			{kind: "Chief", n: 1, policy: "ExitCode", args: []string{"--connect", "--wait-for", "ps-0,worker-0,worker-1"}},
			{kind: "PS", n: 1, policy: "Always", args: []string{"--connect"}},
			// Each reports once it has connected to every other, and stays
			// (listening) until every other has reported: the parameter
			// server too, which may still be dialing them when the chief
			// and the other worker are done.
			{kind: "Worker", n: 2, policy: "OnFailure", args: []string{"--connect", "--wait-for", "chief-0,ps-0,worker-0,worker-1"}},
		}}, nil)
	r.checkSupervisorVolume(volume)
	watched := make(chan string, 1)
	go func() {
		out, code := r.cli("status", "wrap", "--watch")
		if code != 0 {
			out += "\nexit code " + strconv.Itoa(code)
		}
		watched <- out
	}()
	s := r.WaitStatus("the job to end", (*record.Status).Ended)
	if !s.IsTrue(record.JobSucceeded) {
		t.Fatalf("the job failed: %s", r.StatusJSON())
	}
	r.WaitReplicas(map[string]int32{"chief": 0, "ps": 0, "worker": 0})
	r.WaitPods()
	if diff := cmp.Diff(map[string]int{"chief-0": 1, "ps-0": 1, "worker-0": 1, "worker-1": 1}, r.runs()); diff != "" {
		t.Errorf("runs per replica (-want +got):\n%s", diff)
	}
	if out := <-watched; !strings.Contains(out, "Succeeded") || strings.Contains(out, "exit code") {
		t.Errorf("tfgen status --watch printed:\n%s\nwant it to end with the job Succeeded, exit 0", out)
	}
	// After the teardown nothing is left running (the stale status of
	// issue 14's defect 2). A worker may be stopped by the teardown while
	// it waits for the chief's report, or have exited 0 just before.
	v := r.view()
	got := v.replicaStates()
	for _, w := range []string{"worker-0", "worker-1"} {
		if got[w] == "Stopped" {
			got[w] = "Succeeded"
		}
	}
	want := map[string]string{"chief-0": "Succeeded", "ps-0": "Stopped", "worker-0": "Succeeded", "worker-1": "Succeeded"}
	if diff := cmp.Diff(want, got); diff != "" || v.active() != 0 {
		t.Errorf("tfgen status after the teardown: active %d, replicas (-want +got, a worker's Stopped shown as Succeeded):\n%s", v.active(), diff)
	}
}

// TestSidecarJobSucceeds: sidecar mode (no command: the image's
// entrypoint runs, tfsupervisor watches beside it, from an image volume). Worker 0 is killed
// once (137): the kubelet restarts the training container by its restart
// rules (ExitCode), the second run succeeds; its pod stays while worker 1
// runs (AllWorkers), and `tfgen logs` prints its log through the kubelet;
// then worker 1 succeeds, and with it the job. The parameter server is stopped by the teardown (cleanPodPolicy
// Running), every StatefulSet goes to zero, and tfgen status then shows
// the PS Stopped, the workers Succeeded, nothing active (defect 2).
func TestSidecarJobSucceeds(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	// Worker 1 decides (AllWorkers): it waits for the test, while worker
	// 0's pod stays for its logs to be read.
	r := c.startJob(t, jobSpec{name: "side", runPolicy: job.RunPolicy{CleanPodPolicy: job.CleanRunning}, successPolicy: "AllWorkers",
		exits: []string{"worker-0=137,0", "ps=block"},
		replicas: []replica{
			{kind: "PS", n: 1, policy: "Never", sidecar: true},
			{kind: "Worker", n: 2, policy: "ExitCode", sidecar: true, args: []string{"--wait-for", "ps-0,worker-1,worker-1:gate-0"}},
		}}, nil)
	r.checkSupervisorVolume("image")
	poll(t, "worker-0's second run", func(context.Context) (bool, string, error) {
		n := len(r.reports()["worker-0"])
		return n == 2, strconv.Itoa(n) + " runs", nil
	})
	out, code := r.cli("logs", "side", "--replica", "worker-0")
	if code != 0 || !strings.Contains(out, `"replica":"worker-0","run":2`) {
		t.Errorf("tfgen logs --replica worker-0 (exit %d):\n%s\nwant the second run's report", code, out)
	}
	// The kubelet's status of the pod may lag behind the second run.
	poll(t, "worker-0's training container restarted once after exit 137", func(ctx context.Context) (bool, string, error) {
		p, err := c.cp.Client().CoreV1().Pods(r.Namespace).Get(ctx, "side-worker-0", getOpts)
		if err != nil {
			return false, "", err
		}
		st := containerStatus(p, "tensorflow")
		last := st.LastTerminationState.Terminated
		return st.RestartCount == 1 && last != nil && last.ExitCode == 137, fmt.Sprintf("%+v", st), nil
	})
	r.open("gate-0")
	s := r.WaitStatus("the job to end", (*record.Status).Ended)
	if !s.IsTrue(record.JobSucceeded) {
		t.Fatalf("the job failed: %s", r.StatusJSON())
	}
	if s.Restarts != 1 {
		t.Errorf("restarts %d: want worker-0's restart counted", s.Restarts)
	}
	r.WaitReplicas(map[string]int32{"ps": 0, "worker": 0})
	r.WaitPods()
	if diff := cmp.Diff(map[string]int{"ps-0": 1, "worker-0": 2, "worker-1": 1}, r.runs()); diff != "" {
		t.Errorf("runs per replica (-want +got):\n%s", diff)
	}
	v := r.view()
	want := map[string]string{"ps-0": "Stopped", "worker-0": "Succeeded", "worker-1": "Succeeded"}
	if diff := cmp.Diff(want, v.replicaStates()); diff != "" || v.active() != 0 {
		t.Errorf("tfgen status after the teardown: active %d, replicas (-want +got):\n%s", v.active(), diff)
	}
}

// TestRacingExits: the chief and worker 0 wait for each other, then both
// exit 1 at once (permanent). Whichever the job's failure names, both
// replicas are recorded Failed with their exit code, neither as Stopped
// (issue 14's defect 3).
func TestRacingExits(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	r := c.startJob(t, jobSpec{name: "race", runPolicy: job.RunPolicy{CleanPodPolicy: job.CleanNone}, exits: []string{"*=1"},
		replicas: []replica{
			{kind: "Chief", n: 1, policy: "ExitCode", args: []string{"--wait-for", "worker-0"}},
			{kind: "Worker", n: 1, policy: "ExitCode", args: []string{"--wait-for", "chief-0"}},
		}}, nil)
	s := r.WaitStatus("the job to end", (*record.Status).Ended)
	if !s.IsTrue(record.JobFailed) {
		t.Fatalf("status %s: want Failed", r.StatusJSON())
	}
	for _, pod := range []string{"race-chief-0", "race-worker-0"} {
		r.WaitRecord(pod, func(rec record.Replica) bool { return rec.State.Finished() || rec.State == record.StateStopped })
		if rec := r.Record(pod); rec.State != record.StateFailed || rec.LastExitCode == nil || *rec.LastExitCode != 1 {
			t.Errorf("%s's record %+v: want Failed with exit code 1", pod, rec)
		}
	}
	if diff := cmp.Diff(map[string]string{"chief-0": "Failed 1", "worker-0": "Failed 1"}, r.view().replicaStates()); diff != "" {
		t.Errorf("tfgen status, replicas (-want +got):\n%s", diff)
	}
}

// TestPodDeletionRestartsReplica: a worker's pod is evicted (the Eviction
// API, as a drain does), another's deleted; the kubelet stops each with
// SIGTERM, the StatefulSet makes a new pod, and the replica runs again
// without failing the job, which then succeeds.
func TestPodDeletionRestartsReplica(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	r := c.startJob(t, jobSpec{name: "evict", exits: []string{"*=block,0"},
		replicas: []replica{{kind: "Worker", n: 2, policy: "ExitCode"}}}, nil)
	pods := c.cp.Client().CoreV1().Pods(r.Namespace)
	for _, pod := range []string{"evict-worker-1", "evict-worker-0"} {
		r.WaitRecord(pod, func(rec record.Replica) bool { return rec.State == record.StateRunning })
		r.waitReport(pod)
		old, err := pods.Get(t.Context(), pod, getOpts)
		if err != nil {
			t.Fatal(err)
		}
		if pod == "evict-worker-1" {
			err = pods.EvictV1(t.Context(), &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: pod, Namespace: r.Namespace}})
		} else {
			err = pods.Delete(t.Context(), pod, metav1.DeleteOptions{})
		}
		if err != nil {
			t.Fatal(err)
		}
		poll(t, "a new pod "+pod, func(ctx context.Context) (bool, string, error) {
			p, err := pods.Get(ctx, pod, getOpts)
			return err == nil && p.UID != old.UID, "the old one or none", nil
		})
	}
	s := r.WaitStatus("the job to end", (*record.Status).Ended)
	if !s.IsTrue(record.JobSucceeded) {
		t.Fatalf("the job failed: %s", r.StatusJSON())
	}
	if diff := cmp.Diff(map[string]int{"worker-0": 2, "worker-1": 2}, r.runs()); diff != "" {
		t.Errorf("runs per replica (-want +got):\n%s", diff)
	}
}

// checkSupervisorVolume checks how the job's pods get tfsupervisor: an
// image volume of its image ("image") or a copy an init container makes
// into an emptyDir ("copy").
func (r *run) checkSupervisorVolume(want string) {
	r.T.Helper()
	// The replicas' StatefulSets; the keeper's runs tfsupervisor's image.
	sets, err := r.c.cp.Client().AppsV1().StatefulSets(r.Namespace).List(r.T.Context(), metav1.ListOptions{LabelSelector: operate.LabelReplicaType})
	if err != nil {
		r.T.Fatal(err)
	}
	for _, s := range sets.Items {
		got := "none"
		for _, v := range s.Spec.Template.Spec.Volumes {
			switch {
			case v.Name != "tfgen-bin":
			case v.Image != nil:
				got = "image"
			case v.EmptyDir != nil:
				got = "copy"
			}
		}
		if got != want {
			r.T.Errorf("statefulset %s: tfsupervisor by %s, want %s", s.Name, got, want)
		}
	}
}
