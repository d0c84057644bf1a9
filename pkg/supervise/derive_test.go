package supervise

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/record"
)

// derived is what a derivation decided, in short.
type derived struct {
	Phase    string // record.Status.Phase, with the ending reason
	Counts   string // per Kubeflow type: active/succeeded/failed
	Restarts int32
	Grants   string
	Stop     string
	Teardown string
	Wake     time.Duration // after t0; 0: never
	Urgent   bool
}

var t0 = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

func summarize(s *record.Status, ch change) derived {
	d := derived{Phase: string(s.Phase()), Restarts: s.Restarts, Stop: strings.Join(s.Stop, ","), Teardown: strings.Join(s.Teardown, ","), Urgent: ch.urgent()}
	for _, c := range []record.ConditionType{record.JobSucceeded, record.JobFailed} {
		if s.IsTrue(c) {
			d.Phase += " " + s.Condition(c).Reason
		}
	}
	var counts, grants []string
	for t, rs := range s.ReplicaStatuses {
		counts = append(counts, fmt.Sprintf("%s %d/%d/%d", t, rs.Active, rs.Succeeded, rs.Failed))
	}
	for ref, g := range s.RestartGrants {
		grants = append(grants, fmt.Sprintf("%s:%d", ref, g))
	}
	slices.Sort(counts)
	slices.Sort(grants)
	d.Counts, d.Grants = strings.Join(counts, " "), strings.Join(grants, " ")
	if !ch.wake.IsZero() {
		d.Wake = ch.wake.Sub(t0)
	}
	return d
}

// observed reads replicas written "chief-0=Succeeded worker-1=Restarting/2
// ps-0=": type-index=state[/restarts].
func observed(t *testing.T, spec string) []Observed {
	var out []Observed
	for _, f := range strings.Fields(spec) {
		ref, rec, _ := strings.Cut(f, "=")
		o := Observed{Pod: "uid-" + ref}
		state, restarts, _ := strings.Cut(rec, "/")
		o.State = record.State(state)
		if restarts != "" {
			n, err := strconv.Atoi(restarts)
			if err != nil {
				t.Fatalf("replica %q: %v", f, err)
			}
			o.Restarts = int32(n)
		}
		k := strings.LastIndexByte(ref, '-')
		i, err := strconv.Atoi(ref[k+1:])
		if err != nil {
			t.Fatalf("replica %q: %v", f, err)
		}
		o.Ref = Ref{Type: ref[:k], Index: int32(i)}
		out = append(out, o)
	}
	return out
}

// TestDerive covers the keeper's one decision rule by rule, as
// TestControllerSyncJob covers the Job controller's syncJob: a job (roles
// and policy), the replicas it was derived from at t0 (before) and the
// replicas now, at t0+at; what the status then says and when the keeper
// must derive again.
func TestDerive(t *testing.T) {
	const chiefJob = "chief:1:1,ps:1:1,worker:2:1"
	allRunning := "chief-0=Running ps-0=Running worker-0=Running worker-1=Running"
	chiefDone := "chief-0=Succeeded ps-0=Running worker-0=Running worker-1=Running"
	tests := []struct {
		name   string
		roles  string
		policy func(*Job)
		before string // replicas the status was derived from at t0; "" for a new status
		obs    string
		gone   int32
		at     time.Duration
		want   derived
	}{
		// success.go
		{name: "the replicas' first start starts the job", roles: chiefJob, obs: allRunning,
			want: derived{Phase: "Running", Counts: "Chief 1/0/0 PS 1/0/0 Worker 2/0/0", Urgent: true}},
		{name: "the chief's success ends the job, counted in the same write; its finished type goes at once", roles: chiefJob, before: allRunning, obs: chiefDone, at: time.Second,
			want: derived{Phase: "Succeeded JobSucceeded", Counts: "Chief 0/1/0 PS 0/1/0 Worker 0/2/0", Stop: "ps,worker", Teardown: "chief", Wake: time.Second + settleTimeout, Urgent: true}},
		{name: "worker 0 decides a job without a chief", roles: "ps:1:1,worker:2:1", before: "ps-0=Running worker-0=Running worker-1=Running",
			obs: "ps-0=Running worker-0=Succeeded worker-1=Running", at: time.Second,
			want: derived{Phase: "Succeeded JobSucceeded", Counts: "PS 0/1/0 Worker 0/2/0", Stop: "ps,worker", Wake: time.Second + settleTimeout, Urgent: true}},
		{name: "AllWorkers waits for every worker", roles: "ps:1:1,worker:2:1", policy: func(j *Job) { j.SuccessPolicy = "AllWorkers" },
			before: "ps-0=Running worker-0=Running worker-1=Running", obs: "ps-0=Running worker-0=Succeeded worker-1=Running", at: time.Second,
			want: derived{Phase: "Running", Counts: "PS 1/0/0 Worker 1/1/0"}},
		// failure
		{name: "a failed replica fails the job", roles: chiefJob, before: allRunning,
			obs: "chief-0=Running ps-0=Running worker-0=Running worker-1=Failed", at: time.Second,
			want: derived{Phase: "Failed ReplicaFailed", Counts: "Chief 0/0/0 PS 0/0/0 Worker 0/0/1", Stop: "chief,ps,worker", Wake: time.Second + settleTimeout, Urgent: true}},
		// backofflimit.go
		{name: "a restart under the backoff limit is granted", roles: chiefJob, policy: func(j *Job) { j.BackoffLimit = ptr[int32](1) },
			before: allRunning, obs: "chief-0=Running ps-0=Running worker-0=Running worker-1=Restarting", at: time.Second,
			want: derived{Phase: "Restarting", Counts: "Chief 1/0/0 PS 1/0/0 Worker 2/0/0", Restarts: 1, Grants: "worker-1:1", Urgent: true}},
		{name: "the first restart past the backoff limit fails the job and its replica", roles: chiefJob, policy: func(j *Job) { j.BackoffLimit = ptr[int32](1) },
			before: allRunning, obs: "chief-0=Running ps-0=Running worker-0=Restarting/1 worker-1=Restarting", gone: 0, at: time.Second,
			want: derived{Phase: "Failed BackoffLimitExceeded", Counts: "Chief 0/0/0 PS 0/0/0 Worker 0/0/1", Restarts: 1, Stop: "chief,ps,worker", Wake: time.Second + settleTimeout, Urgent: true}},
		{name: "gone pods' restarts count", roles: chiefJob, before: allRunning, obs: allRunning, gone: 2, at: time.Second,
			want: derived{Phase: "Running", Counts: "Chief 1/0/0 PS 1/0/0 Worker 2/0/0", Restarts: 2}},
		{name: "a record that reaches the keeper after the end is counted", roles: "chief:1:1,worker:2:1", policy: func(j *Job) { j.CleanPodPolicy = CleanNone },
			before: "chief-0=Succeeded worker-0=Succeeded", obs: "chief-0=Succeeded worker-0=Succeeded worker-1=Succeeded", at: time.Second,
			want: derived{Phase: "Succeeded JobSucceeded", Counts: "Chief 0/1/0 Worker 0/2/0"}},
		{name: "a late failure takes a success's place, never counted twice", roles: "chief:1:1,worker:2:1", policy: func(j *Job) { j.CleanPodPolicy = CleanNone },
			before: "chief-0=Succeeded worker-0=Succeeded worker-1=Running", obs: "chief-0=Succeeded worker-0=Succeeded worker-1=Failed", at: time.Second,
			want: derived{Phase: "Succeeded JobSucceeded", Counts: "Chief 0/1/0 Worker 0/1/1"}},
		// cleanpod.go
		{name: "Running: a finished type goes at once, a stopped one once it said so, the keeper's StatefulSet last", roles: chiefJob,
			before: "chief-0=Succeeded ps-0=Running worker-0=Succeeded worker-1=Succeeded",
			obs:    "chief-0=Succeeded ps-0=Stopped worker-0=Succeeded worker-1=Succeeded", at: time.Second,
			want: derived{Phase: "Succeeded JobSucceeded", Counts: "Chief 0/1/0 PS 0/1/0 Worker 0/2/0", Stop: "ps", Teardown: "chief,worker,ps,keeper", Urgent: true}},
		{name: "Running: a type whose replica has not said how it ended waits, and the keeper with it", roles: chiefJob,
			before: "chief-0=Succeeded ps-0=Running worker-0=Succeeded worker-1=Succeeded",
			obs:    "chief-0=Succeeded ps-0=Running worker-0=Succeeded worker-1=Succeeded", at: time.Second,
			want: derived{Phase: "Succeeded JobSucceeded", Counts: "Chief 0/1/0 PS 0/1/0 Worker 0/2/0", Stop: "ps", Teardown: "chief,worker", Wake: settleTimeout}},
		{name: "a replica that never says is waited for settleTimeout", roles: chiefJob,
			before: "chief-0=Succeeded ps-0=Running worker-0=Succeeded worker-1=Succeeded",
			obs:    "chief-0=Succeeded ps-0=Running worker-0=Succeeded worker-1=Succeeded", at: settleTimeout,
			want: derived{Phase: "Succeeded JobSucceeded", Counts: "Chief 0/1/0 PS 0/1/0 Worker 0/2/0", Stop: "ps", Teardown: "chief,worker,ps,keeper", Urgent: true}},
		{name: "All: every type stops and goes at once, the keeper once they said", roles: chiefJob, policy: func(j *Job) { j.CleanPodPolicy = CleanAll },
			before: allRunning, obs: chiefDone, at: time.Second,
			want: derived{Phase: "Succeeded JobSucceeded", Counts: "Chief 0/1/0 PS 0/1/0 Worker 0/2/0", Stop: "chief,ps,worker", Teardown: "chief,ps,worker", Wake: time.Second + settleTimeout, Urgent: true}},
		{name: "None: nothing stops, nothing goes", roles: chiefJob, policy: func(j *Job) { j.CleanPodPolicy = CleanNone },
			before: allRunning, obs: chiefDone, at: time.Second,
			want: derived{Phase: "Succeeded JobSucceeded", Counts: "Chief 0/1/0 PS 0/1/0 Worker 0/2/0", Urgent: true}},
		// deadline.go
		{name: "before the active deadline: wake at it", roles: chiefJob, policy: func(j *Job) { j.ActiveDeadline = 10 * time.Second },
			before: allRunning, obs: allRunning, at: 5 * time.Second,
			want: derived{Phase: "Running", Counts: "Chief 1/0/0 PS 1/0/0 Worker 2/0/0", Wake: 10 * time.Second}},
		{name: "past the active deadline every type stops", roles: chiefJob, policy: func(j *Job) { j.ActiveDeadline = 10 * time.Second },
			before: allRunning, obs: allRunning, at: 10 * time.Second,
			want: derived{Phase: "Failed DeadlineExceeded", Counts: "Chief 0/0/0 PS 0/0/0 Worker 0/0/0", Stop: "chief,ps,worker", Wake: 10*time.Second + settleTimeout, Urgent: true}},
		// ttl.go (applied by cleanpod.go)
		{name: "TTL after finished: wake at it", roles: chiefJob, policy: func(j *Job) { j.CleanPodPolicy, j.TTLAfterFinished = CleanNone, ptr(30*time.Second) },
			before: chiefDone, obs: chiefDone, at: 10 * time.Second,
			want: derived{Phase: "Succeeded JobSucceeded", Counts: "Chief 0/1/0 PS 0/1/0 Worker 0/2/0", Wake: 30 * time.Second}},
		{name: "TTL after finished releases every type", roles: chiefJob, policy: func(j *Job) { j.CleanPodPolicy, j.TTLAfterFinished = CleanNone, ptr(30*time.Second) },
			before: chiefDone, obs: chiefDone, at: 30 * time.Second,
			want: derived{Phase: "Succeeded JobSucceeded", Counts: "Chief 0/1/0 PS 0/1/0 Worker 0/2/0", Teardown: "chief,ps,worker,keeper", Urgent: true}},
		// evaluator.go
		{name: "an evaluator gets its grace", roles: "chief:1:1,evaluator:1:1", policy: func(j *Job) { j.EvaluatorGrace = 20 * time.Second },
			before: "chief-0=Running evaluator-0=Running", obs: "chief-0=Succeeded evaluator-0=Running", at: time.Second,
			want: derived{Phase: "Succeeded JobSucceeded", Counts: "Chief 0/1/0 Evaluator 1/0/0", Teardown: "chief", Wake: 21 * time.Second, Urgent: true}},
		{name: "an evaluator past its grace stops", roles: "chief:1:1,evaluator:1:1", policy: func(j *Job) { j.EvaluatorGrace = 20 * time.Second },
			before: "chief-0=Succeeded evaluator-0=Running", obs: "chief-0=Succeeded evaluator-0=Running", at: 20 * time.Second,
			want: derived{Phase: "Succeeded JobSucceeded", Counts: "Chief 0/1/0 Evaluator 0/0/0", Stop: "evaluator", Teardown: "chief", Wake: 20*time.Second + settleTimeout}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := cluster.ParseRoles(tt.roles)
			if err != nil {
				t.Fatal(err)
			}
			j := &Job{Name: "j", Layout: &cluster.Layout{Job: "j", Roles: r}, CleanPodPolicy: CleanRunning}
			if tt.policy != nil {
				tt.policy(j)
			}
			s := &record.Status{}
			if tt.before != "" {
				s, _ = j.derive(s, observation{replicas: observed(t, tt.before), now: t0})
			}
			got, ch := j.derive(s, observation{replicas: observed(t, tt.obs), gone: tt.gone, now: t0.Add(tt.at)})
			if diff := cmp.Diff(tt.want, summarize(got, ch)); diff != "" {
				t.Errorf("derived (-want +got):\n%s", diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
