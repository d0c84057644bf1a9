package metrics

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tfgen/tfgen/pkg/record"
)

var t0 = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// recordOf is job name's record ConfigMap with status s.
func recordOf(t *testing.T, name string, s *record.Status) *corev1.ConfigMap {
	t.Helper()
	raw, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := json.Marshal(map[string]any{"tfReplicaSpecs": map[string]any{
		"PS": map[string]any{"replicas": 1}, "Worker": map[string]any{"replicas": 2}}})
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name),
		CreationTimestamp: metav1.NewTime(t0)}, Data: map[string]string{record.DataKey: raw, "spec.json": string(spec)}}
}

func status(mutate ...func(*record.Status)) *record.Status {
	s := &record.Status{}
	for _, m := range mutate {
		m(s)
	}
	return s
}

func succeeded(s *record.Status) {
	s.Start(t0)
	s.Finish(true, "JobSucceeded", "done", t0.Add(time.Minute))
}
func failed(s *record.Status) {
	s.Start(t0)
	s.Finish(false, "ReplicaFailed", "failed", t0.Add(time.Minute))
}
func restarts(n int32) func(*record.Status) {
	return func(s *record.Status) { s.Start(t0); s.Restarts = n }
}

func count(c *prometheus.CounterVec) float64 {
	return testutil.ToFloat64(c.WithLabelValues("ns", "tensorflow"))
}

// TestCountersCountWhatTheReaderSaw: jobs listed at the start are not
// counted, whatever they had done; a job seen created counts as created,
// its restarts and its end once however often its record changes; a
// deletion counts. A second reader (a restart) listing the same jobs
// counts none of them again.
func TestCountersCountWhatTheReaderSaw(t *testing.T) {
	r := NewReader(prometheus.NewRegistry())
	r.OnRecord(recordOf(t, "old-done", status(succeeded)), true)
	r.OnRecord(recordOf(t, "old-running", status(restarts(2))), true)
	r.OnRecord(recordOf(t, "new", status()), false)
	r.OnRecord(recordOf(t, "new", status(restarts(1))), false)
	r.OnRecord(recordOf(t, "new", status(restarts(3))), false)
	r.OnRecord(recordOf(t, "old-running", status(restarts(3), failed)), false)
	r.OnRecord(recordOf(t, "new", status(restarts(3), succeeded)), false)
	r.OnRecord(recordOf(t, "new", status(restarts(3), succeeded)), false)
	r.OnRecordDeleted(recordOf(t, "old-done", status(succeeded)))
	want := map[string]float64{"created": 1, "restarted": 1 + 3, "successful": 1, "failed": 1, "deleted": 1}
	got := map[string]float64{"created": count(r.created), "restarted": count(r.restarted), "successful": count(r.succeeded),
		"failed": count(r.failed), "deleted": count(r.deleted)}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %v, want %v (all: %v)", k, got[k], v, got)
		}
	}
	again := NewReader(prometheus.NewRegistry())
	again.OnRecord(recordOf(t, "old-running", status(restarts(3), failed)), true)
	again.OnRecord(recordOf(t, "new", status(restarts(3), succeeded)), true)
	again.OnRecord(recordOf(t, "new", status(restarts(3), succeeded)), false)
	for _, c := range []*prometheus.CounterVec{again.created, again.restarted, again.succeeded, again.failed} {
		if n := count(c); n != 0 {
			t.Errorf("a restarted reader counted %v of the jobs it listed", n)
		}
	}
}

// pod is replica typ-i of job name, its container started at started
// (zero: not yet), with record rec.
func pod(name, typ string, i int, started time.Time, rec *record.Replica) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name + "-" + typ + "-" + string(rune('0'+i)),
		Labels: map[string]string{labelJobName: name, labelReplicaType: typ}}}
	if rec != nil {
		p.Annotations = rec.Annotations()
	}
	if !started.IsZero() {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "tensorflow",
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(started)}}}}
	}
	return p
}

// TestDelays: the launch delays of a job seen created, from its creation to
// its first and to its last replica's container start; the stop delay
// from its end to the last exit of a replica it stopped, once none of
// them is active.
func TestDelays(t *testing.T) {
	reg := prometheus.NewRegistry()
	r := NewReader(reg)
	r.OnRecord(recordOf(t, "j", status()), false)
	r.OnPod(pod("j", "ps", 0, t0.Add(2*time.Second), nil))
	r.OnPod(pod("j", "worker", 0, t0.Add(3*time.Second), nil))
	r.OnPod(pod("j", "worker", 1, time.Time{}, nil))
	r.OnPod(pod("j", "worker", 1, t0.Add(7*time.Second), nil))
	end := t0.Add(time.Minute)
	code := int32(143)
	r.OnRecord(recordOf(t, "j", status(func(s *record.Status) {
		s.Start(t0)
		s.Finish(true, "JobSucceeded", "done", end)
		s.Stop = []string{"ps"}
	})), false)
	r.OnPod(pod("j", "worker", 0, t0.Add(3*time.Second), &record.Replica{State: record.StateSucceeded, LastExitCode: new(int32), LastExitTime: end}))
	r.OnPod(pod("j", "ps", 0, t0.Add(2*time.Second), &record.Replica{State: record.StateStopped, LastExitCode: &code, LastExitTime: end.Add(400 * time.Millisecond)}))
	hist := map[string][2]float64{} // count, sum
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			if h := m.GetHistogram(); h != nil {
				hist[mf.GetName()] = [2]float64{float64(h.GetSampleCount()), h.GetSampleSum()}
			}
		}
	}
	wantHist := map[string][2]float64{
		"tfgen_jobs_first_pod_launch_delay_seconds": {1, 2},
		"tfgen_jobs_all_pods_launch_delay_seconds":  {1, 7},
		"tfgen_jobs_stop_delay_seconds":             {1, 0.4},
	}
	if diff := cmp.Diff(wantHist, hist, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("histograms' count and sum (-want +got):\n%s", diff)
	}
	want := `
# HELP tfgen_job_last_exit_code The exit code of the last exit of a training process of a replica type
# TYPE tfgen_job_last_exit_code gauge
tfgen_job_last_exit_code{framework="tensorflow",job_name="j",job_namespace="ns",replica_type="ps"} 143
tfgen_job_last_exit_code{framework="tensorflow",job_name="j",job_namespace="ns",replica_type="worker"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "tfgen_job_last_exit_code"); err != nil {
		t.Error(err)
	}
}
