package operate

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/record"
)

func ptr[T any](v T) *T { return &v }

func testJob(mutate func(*Job)) *Job {
	j := &Job{Name: "j", Status: &record.Status{}, Spec: &job.Job{Name: "j", TFReplicaSpecs: map[job.ReplicaType]*job.ReplicaSpec{
		"PS": {Replicas: ptr[int32](2)}, "Worker": {Replicas: ptr[int32](4)}}}}
	if mutate != nil {
		mutate(j)
	}
	return j
}

func TestState(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		name      string
		job       *Job
		state     string
		suspended bool
	}{
		{name: "nobody started", job: testJob(nil), state: "Created"},
		{name: "running", job: testJob(func(j *Job) {
			j.Status.Start(now)
			j.Status.SetCondition(record.JobRunning, "JobRunning", "", now)
		}), state: "Running"},
		{name: "rendered suspended", job: testJob(func(j *Job) { j.Spec.RunPolicy.Suspend = ptr(true) }), state: "Suspended", suspended: true},
		{name: "rendered suspended, resumed", job: testJob(func(j *Job) {
			j.Spec.RunPolicy.Suspend = ptr(true)
			j.Status.Conditions = []record.Condition{{Type: record.JobSuspended, Status: record.ConditionFalse}}
		}), state: "Created"},
		{name: "suspended", job: testJob(func(j *Job) { j.Status.SetCondition(record.JobSuspended, "TFJobSuspended", "", now) }), state: "Suspended", suspended: true},
		{name: "failed while suspended", job: testJob(func(j *Job) {
			j.Status.SetCondition(record.JobSuspended, "TFJobSuspended", "", now)
			j.Status.Finish(false, "DeadlineExceeded", "", now)
		}), state: "Failed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.job.State(); got != tc.state {
				t.Errorf("State() = %s, want %s", got, tc.state)
			}
			if got := tc.job.Suspended(); got != tc.suspended {
				t.Errorf("Suspended() = %v, want %v", got, tc.suspended)
			}
		})
	}
}

func TestDesired(t *testing.T) {
	j := testJob(func(j *Job) { j.Scaled = map[string]int32{"worker": 2} })
	if diff := cmp.Diff(map[string]int32{"ps": 2, "worker": 2}, j.Desired()); diff != "" {
		t.Errorf("Desired (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"ps", "worker"}, j.Types()); diff != "" {
		t.Errorf("Types (-want +got):\n%s", diff)
	}
}

func TestCheckRange(t *testing.T) {
	cases := []struct {
		name     string
		min, max *int32
		typ      string
		n        int32
		kueue    bool
		want     string
	}{
		{name: "no bounds", typ: "worker", n: 9},
		{name: "within", min: ptr[int32](1), max: ptr[int32](4), typ: "worker", n: 4},
		{name: "above", min: ptr[int32](1), max: ptr[int32](4), typ: "worker", n: 5, want: "job j runs 1 to 4 workers (its minInstances and maxInstances), not 5"},
		{name: "below", min: ptr[int32](2), max: ptr[int32](4), typ: "worker", n: 1, want: "job j runs 2 to 4 workers (its minInstances and maxInstances), not 1"},
		{name: "only min", min: ptr[int32](2), typ: "worker", n: 1, want: "job j runs at least 2 workers (its minInstances), not 1"},
		{name: "only max", max: ptr[int32](2), typ: "worker", n: 3, want: "job j runs at most 2 workers (its maxInstances), not 3"},
		{name: "other types are not bounded", max: ptr[int32](2), typ: "ps", n: 3},
		{name: "negative", typ: "worker", n: -1, want: "cannot scale worker of job j to -1 replicas"},
		{name: "under Kueue", typ: "worker", n: 3, kueue: true,
			want: "job j is admitted by Kueue as one group of its rendered size: it cannot be resized; delete it and apply it again with other replicas"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := testJob(func(j *Job) {
				j.Spec.MinInstances, j.Spec.MaxInstances = tc.min, tc.max
				if tc.kueue {
					j.Spec.Scheduler = &job.SchedulerSpec{Gang: "kueue"}
				}
			})
			got := ""
			if err := j.checkRange(tc.typ, tc.n); err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
