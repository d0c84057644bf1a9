package supervise_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/kube"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// ended writes the status of a job that succeeded and released types.
func (j *job) ended(teardown ...string) {
	j.t.Helper()
	if _, err := j.store.Update(context.Background(), func(s *record.Status) error {
		s.Finish(true, supervise.ReasonJobSucceeded, "replica chief-0 succeeded", newClock(false).Now())
		s.AddSucceeded("chief", 0)
		s.Stop, s.Teardown = []string{"ps", "worker"}, teardown
		return nil
	}); err != nil {
		j.t.Fatal(err)
	}
}

// TestKeeperFinishesTeardown: a keeper that starts on a status whose
// teardown an earlier keeper began (and died in) sets every released
// type to zero, its own StatefulSet last, though nothing changes.
func TestKeeperFinishesTeardown(t *testing.T) {
	j := newJob(t, "chief:1:1,ps:2:1,worker:3:1", nil)
	j.ended("ps", "worker", "chief", supervise.KeeperType)
	j.keep(-1)
	j.sc.await(t, "ps to 0", "worker to 0", "chief to 0", "keeper to 0")
	if got := j.events.events(); len(got) != 0 {
		t.Errorf("events %v: the decisions were announced when first written", got)
	}
}

// TestKeeperRetriesRefusedScale: the API server refuses to scale the
// parameter servers (a Role without the rule, then fixed): the keeper
// tries again until it takes it, warns once, and scales its own
// StatefulSet only after every other.
func TestKeeperRetriesRefusedScale(t *testing.T) {
	j := newJob(t, "chief:1:1,ps:2:1,worker:3:1", nil)
	refusals := 3
	j.sc.fail = func(typ string, _ int32) error {
		if typ == "ps" && refusals > 0 {
			refusals--
			return &kube.APIError{Code: 403, Reason: "Forbidden"}
		}
		return nil
	}
	j.ended("ps", "worker", "chief", supervise.KeeperType)
	k := j.keeper(-1)
	k.Clock = newClock(true) // the waits between attempts pass at once
	j.stop = runKeeper(t, k)
	j.sc.await(t, "worker to 0", "chief to 0", "ps to 0", "keeper to 0")
	if diff := cmp.Diff([]string{supervise.ReasonTeardownFailed}, j.events.events()); diff != "" {
		t.Errorf("events (-want +got): one warning for a run of refusals\n%s", diff)
	}
}

// TestKeeperCorrectsDrift: after the teardown, a released type's
// StatefulSet is scaled back up behind the keeper's back, and its pods
// come: the keeper checks the StatefulSets (no sooner than 5 s after its
// last check) and sets it to zero again. A pod still going after the
// scale-down only costs a check.
func TestKeeperCorrectsDrift(t *testing.T) {
	j := newJob(t, "chief:1:1,worker:2:1", nil)
	j.ended("worker", "chief", supervise.KeeperType)
	k := j.keeper(-1)
	clk := newClock(false)
	k.Clock = clk
	j.stop = runKeeper(t, k)
	j.sc.await(t, "worker to 0", "chief to 0", "keeper to 0")
	j.set("worker-1", record.StateIdle, 0) // going after the scale-down
	clk.Advance(5 * time.Second)
	j.set("worker-1", record.StateIdle, 0)
	j.sc.drift("worker", 2)
	clk.Advance(5 * time.Second)
	j.set("worker-0", record.StateIdle, 0) // the scale-up's pods
	j.sc.await(t, "worker to 0", "chief to 0", "keeper to 0", "worker to 0")
}

func TestTargets(t *testing.T) {
	for _, tc := range []struct {
		name      string
		roles     string
		policy    supervise.CleanPodPolicy
		succeeded map[string][]int32
		failed    map[string][]int32
		teardown  []string
		suspended bool
		want      []supervise.Target
	}{
		{name: "nothing finished", roles: "chief:1:1,worker:4:1"},
		{name: "the highest workers finished", roles: "chief:1:1,worker:5:1",
			succeeded: map[string][]int32{"worker": {1, 3, 4}}, failed: map[string][]int32{"worker": {2}},
			want: []supervise.Target{{Type: "worker", Replicas: 1}}},
		{name: "a finished worker below a running one stays", roles: "chief:1:1,worker:3:1",
			succeeded: map[string][]int32{"worker": {0, 1}}},
		{name: "every worker finished: none stays (the keeper has a pod of its own)", roles: "ps:1:1,worker:3:1",
			succeeded: map[string][]int32{"worker": {0, 1, 2}}, want: []supervise.Target{{Type: "worker"}}},
		{name: "None keeps every pod", roles: "chief:1:1,worker:3:1", policy: supervise.CleanNone,
			succeeded: map[string][]int32{"worker": {2}}},
		{name: "a suspended job is left to tfgen resume", roles: "chief:1:1,worker:3:1", suspended: true,
			succeeded: map[string][]int32{"worker": {2}}},
		{name: "released types", roles: "chief:1:1,ps:1:1,worker:3:1",
			succeeded: map[string][]int32{"worker": {2}}, teardown: []string{"chief", "ps"},
			want: []supervise.Target{{Type: "worker", Replicas: 2}, {Type: "chief"}, {Type: "ps"}}},
		{name: "the keeper's StatefulSet last", roles: "chief:1:1,ps:1:1,worker:3:1",
			teardown: []string{supervise.KeeperType, "chief", "ps", "worker"},
			want:     []supervise.Target{{Type: "chief"}, {Type: "ps"}, {Type: "worker"}, {Type: supervise.KeeperType}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := &supervise.Job{Layout: roles(tc.roles), CleanPodPolicy: tc.policy}
			if err := j.Validate(); err != nil {
				t.Fatal(err)
			}
			s := &record.Status{Teardown: tc.teardown}
			for typ, is := range tc.succeeded {
				for _, i := range is {
					s.AddSucceeded(typ, i)
				}
			}
			for typ, is := range tc.failed {
				for _, i := range is {
					s.AddFailed(typ, i)
				}
			}
			if tc.suspended {
				s.SetCondition(record.JobSuspended, "TFJobSuspended", "", newClock(false).Now())
			}
			if diff := cmp.Diff(tc.want, j.Targets(s)); diff != "" {
				t.Errorf("Targets (-want +got):\n%s", diff)
			}
		})
	}
}
