package cli

import (
	"bytes"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/internal/golden"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/operate"
	"github.com/tfgen/tfgen/pkg/record"
)

// The cluster commands are tested end to end in test/operate; these
// tests cover what needs no cluster: flag checks and the printers.

func TestClusterCommandFlags(t *testing.T) {
	runCases(t, []cmdCase{
		{name: "status needs a job", args: []string{"status"}, golden: "testdata/operate/status-no-job.txt", wantErr: true},
		{name: "status -o xml", args: []string{"status", "j", "-o", "xml"}, golden: "testdata/operate/status-xml.txt", wantErr: true},
		{name: "list -A -n", args: []string{"list", "-A", "-n", "a"}, golden: "testdata/operate/list-a-n.txt", wantErr: true},
		{name: "logs --replica --all", args: []string{"logs", "j", "--replica", "worker-0", "--all"}, golden: "testdata/operate/logs-replica-all.txt", wantErr: true},
		{name: "scale without --workers", args: []string{"scale", "j"}, golden: "testdata/operate/scale-no-workers.txt", wantErr: true},
		{name: "delete --timeout -1s", args: []string{"delete", "j", "--timeout", "-1s"}, golden: "testdata/operate/delete-timeout.txt", wantErr: true},
		{name: "no kubeconfig", args: []string{"status", "j", "--kubeconfig", "testdata/operate/none"}, golden: "testdata/operate/no-kubeconfig.txt", wantErr: true},
	})
}

func ptr[T any](v T) *T { return &v }

// printerJobs are a running and a succeeded job, written as supervisors
// write their records.
func printerJobs(t0 time.Time) []*operate.Job {
	spec := &job.Job{TFReplicaSpecs: map[job.ReplicaType]*job.ReplicaSpec{"PS": {}, "Worker": {Replicas: ptr[int32](2)}}}
	run := &record.Status{Restarts: 2}
	run.Start(t0)
	run.SetCondition(record.JobRunning, "JobRunning", "TFJob mnist is running.", t0)
	run.ReplicaStatuses = map[string]*record.ReplicaStatus{"PS": {Active: 1}, "Worker": {Active: 1}}
	done := run.DeepCopy()
	done.AddSucceeded("worker", 0)
	done.Finish(true, "JobSucceeded", "replica worker-0 succeeded", t0.Add(90*time.Minute))
	done.ReplicaStatuses = map[string]*record.ReplicaStatus{"PS": {Succeeded: 1}, "Worker": {Succeeded: 1}}
	mx := &job.Job{MXReplicaSpecs: map[job.ReplicaType]*job.ReplicaSpec{"Scheduler": {}, "Server": {}, "Worker": {}}}
	return []*operate.Job{
		{Namespace: "a", Name: "mnist", Created: t0, Spec: spec, Status: run},
		{Namespace: "b", Name: "linear", Created: t0.Add(-48 * time.Hour), Spec: mx, Status: &record.Status{}},
		{Namespace: "b", Name: "mnist", Created: t0.Add(-2 * time.Hour), Spec: spec, Status: done},
	}
}

func TestPrinters(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	now := t0.Add(2 * time.Hour)
	jobs := printerJobs(t0)
	var b bytes.Buffer
	if err := printList(&b, jobs, nil, true, now); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "../../testdata/operate/list-all.txt", b.Bytes())

	for _, j := range []*operate.Job{jobs[0], jobs[2]} {
		w0 := record.StateRunning
		if j.Status.HasSucceeded("worker", 0) {
			w0 = record.StateSucceeded
		}
		v, err := operate.NewView(j, []operate.Replica{
			{Name: "ps-0", Type: "ps", State: record.StateRunning, Reason: "Started", Pod: j.Name + "-ps-0", Phase: "Running", Node: "n1"},
			{Name: "worker-0", Type: "worker", State: w0, Restarts: 2, LastExitCode: ptr[int32](137),
				Pod: j.Name + "-worker-0", Phase: "Running", Node: "n2"},
			{Name: "worker-1", Type: "worker", Index: 1, Reason: "ErrImagePull", Pod: j.Name + "-worker-1", Phase: "Pending"},
		})
		if err != nil {
			t.Fatal(err)
		}
		b.Reset()
		if err := printStatus(&b, v, now); err != nil {
			t.Fatal(err)
		}
		golden.Assert(t, "../../testdata/operate/status-"+j.Namespace+"-"+j.Name+".txt", b.Bytes())
	}
}

// TestAdmissionText: what tfgen status says of a job's admission by Kueue.
func TestAdmissionText(t *testing.T) {
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		a    operate.Admission
		want string
	}{
		{name: "queued", a: operate.Admission{Queue: "q", State: operate.AdmissionQueued, Reason: "Pending", Message: "couldn't assign flavors"},
			want: "Queued in queue q: Pending: couldn't assign flavors"},
		{name: "admitted, pods not all Ready",
			a: operate.Admission{Queue: "q", ClusterQueue: "cq", State: operate.AdmissionAdmitted, Reason: "Admitted", Message: "The workload is admitted",
				NotReady: &metav1.Condition{Reason: "WaitForRecovery", Message: "At least one pod has failed, waiting for recovery", LastTransitionTime: metav1.NewTime(now.Add(-20 * time.Second))}},
			want: "Admitted in queue q (ClusterQueue cq): Admitted: The workload is admitted; pods not all Ready for 20s (WaitForRecovery: At least one pod has failed, waiting for recovery)"},
		{name: "evicted, in backoff",
			a: operate.Admission{Queue: "q", State: operate.AdmissionEvicted, Reason: "PodsReadyTimeout", Message: "Exceeded the PodsReady timeout ns/j",
				RequeueAt: &metav1.Time{Time: now.Add(5 * time.Second)}},
			want: "Evicted in queue q: PodsReadyTimeout: Exceeded the PodsReady timeout ns/j; back in its queue in 5s"},
		{name: "evicted, backoff over",
			a: operate.Admission{Queue: "q", State: operate.AdmissionEvicted, Reason: "PodsReadyTimeout", Message: "Exceeded the PodsReady timeout ns/j",
				RequeueAt: &metav1.Time{Time: now.Add(-time.Second)}},
			want: "Evicted in queue q: PodsReadyTimeout: Exceeded the PodsReady timeout ns/j; back in its queue"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := admissionText(&tc.a, now); got != tc.want {
				t.Errorf("admissionText:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
	es := []operate.Eviction{{Reason: "PodsReadyTimeout", Count: 2, Last: metav1.NewTime(now.Add(-20 * time.Second)), Message: "Exceeded the PodsReady timeout ns/j"},
		{Reason: "Preempted", Count: 1, Last: metav1.NewTime(now.Add(-5 * time.Minute))}}
	if got, want := evictionsText(es, now), "PodsReadyTimeout: 2, last 20s ago: Exceeded the PodsReady timeout ns/j; Preempted: 1, last 5m ago"; got != want {
		t.Errorf("evictionsText:\n got %q\nwant %q", got, want)
	}
}
