package supervise

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/record"
)

func TestElasticWorkers(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	now := t0.Add(10 * time.Minute)
	started := func(workers int32, resizedAgo time.Duration) *record.Status {
		s := &record.Status{Layout: map[string]int32{"worker": workers}}
		s.Start(t0)
		if resizedAgo > 0 {
			at := record.NewTime(now.Add(-resizedAgo))
			s.ResizedAt = &at
		}
		return s
	}
	a := func(i int32) ElasticPod {
		return ElasticPod{Job: "a", Ref: Ref{Type: "worker", Index: i}, Min: 1, Scheduled: true, Since: t0}
	}
	pending := func(job string, i int32, min int32, ago time.Duration) ElasticPod {
		return ElasticPod{Job: job, Ref: Ref{Type: "worker", Index: i}, Min: min, Since: now.Add(-ago)}
	}
	placed := func(job string, i, min int32) ElasticPod {
		return ElasticPod{Job: job, Ref: Ref{Type: "worker", Index: i}, Min: min, Scheduled: true, Since: t0}
	}
	quiet := now.Add(-2 * time.Minute)
	for _, tc := range []struct {
		name     string
		status   *record.Status
		pods     []ElasticPod
		activity time.Time
		want     int32
		changes  bool
		wake     time.Time
	}{
		{name: "not started", status: &record.Status{}, activity: quiet, want: 4},
		{name: "B waits, not yet 30 s", status: started(4, 0), activity: quiet,
			pods: []ElasticPod{a(0), a(1), a(2), a(3), pending("b", 0, 2, 10*time.Second), pending("b", 1, 2, 10*time.Second)},
			want: 4, wake: now.Add(20 * time.Second)},
		{name: "B waited 30 s: A gives what B lacks", status: started(4, 0), activity: quiet,
			pods: []ElasticPod{a(0), a(1), a(2), a(3), pending("b", 0, 2, 31*time.Second), pending("b", 1, 2, 31*time.Second)},
			want: 2, changes: true},
		{name: "never below the minimum", status: started(2, 0), activity: quiet,
			pods: []ElasticPod{a(0), a(1), pending("b", 0, 2, time.Minute), pending("b", 1, 2, time.Minute), pending("b", 2, 3, time.Minute)},
			want: 1, changes: true},
		{name: "C has more above its minimum: C gives way", status: started(2, 0), activity: quiet,
			pods: []ElasticPod{a(0), a(1), placed("c", 0, 1), placed("c", 1, 1), placed("c", 2, 1), placed("c", 3, 1), pending("b", 0, 1, time.Minute)},
			want: 2},
		{name: "one shrink, then time for the scheduler", status: started(3, 5*time.Second), activity: quiet,
			pods: []ElasticPod{a(0), a(1), a(2), pending("b", 1, 2, time.Minute)},
			want: 3, wake: now.Add(5 * time.Second)},
		{name: "a worker it grew by found no room: taken back", status: started(4, time.Minute), activity: quiet,
			pods: []ElasticPod{a(0), a(1), a(2), pending("a", 3, 1, 31*time.Second)},
			want: 3, changes: true},
		{name: "another job's growth pending is no reason to shrink, nor room to grow", status: started(3, 0), activity: quiet,
			pods: []ElasticPod{a(0), a(1), a(2), placed("c", 0, 1), pending("c", 1, 1, time.Minute)},
			want: 3},
		{name: "quiet: grows by one", status: started(2, 5*time.Minute), activity: quiet, pods: []ElasticPod{a(0), a(1)},
			want: 3, changes: true},
		{name: "a pod came 20 s ago: grows 40 s later", status: started(2, 5*time.Minute), activity: now.Add(-20 * time.Second),
			pods: []ElasticPod{a(0), a(1)}, want: 2, wake: now.Add(40 * time.Second)},
		{name: "at its maximum", status: started(4, 5*time.Minute), activity: quiet, pods: []ElasticPod{a(0), a(1), a(2), a(3)}, want: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := &Job{Name: "a", Layout: &cluster.Layout{Job: "a", Roles: []cluster.Role{{Type: "worker", Replicas: 4, Port: 2222}}},
				Elastic: &Elastic{Min: 1, Max: 4}}
			n, why, wake := j.elasticWorkers(tc.status, tc.pods, tc.activity, now)
			if n != tc.want || (why != "") != tc.changes || !wake.Equal(tc.wake) {
				t.Errorf("elasticWorkers = %d (%q), wake %v; want %d, a change %v, wake %v", n, why, wake, tc.want, tc.changes, tc.wake)
			}
		})
	}
}

// TestDeriveResizes: an elastic job's resize is part of the derivation:
// the layout, its generation and the time written with the rest, urgent,
// with its event and log line; the decision's wake is the derivation's;
// without the elastic pods (the keeper's last step) nothing is resized.
func TestDeriveResizes(t *testing.T) {
	j := &Job{Name: "a", Layout: &cluster.Layout{Job: "a", Roles: []cluster.Role{{Type: "worker", Replicas: 4, Port: 2222}}},
		Elastic: &Elastic{Min: 1, Max: 4}, CleanPodPolicy: CleanRunning}
	running := observed(t, "worker-0=Running worker-1=Running")
	s, _ := j.derive(&record.Status{Layout: map[string]int32{"worker": 2}}, observation{replicas: running, now: t0})
	now := t0.Add(10 * time.Minute)
	pods := []ElasticPod{{Job: "a", Ref: Ref{Type: "worker"}, Min: 1, Scheduled: true, Since: t0},
		{Job: "a", Ref: Ref{Type: "worker", Index: 1}, Min: 1, Scheduled: true, Since: t0}}
	for _, tc := range []struct {
		name     string
		elastic  *elasticView
		workers  int32
		wake     time.Time
		resized  bool
		wantNote string
	}{
		{name: "quiet: grows, at once", elastic: &elasticView{pods: pods, activity: t0}, workers: 3, resized: true,
			wantNote: "workers 2 -> 3: no elastic pod of the namespace came or went for 1m0s"},
		{name: "a pod came 20 s ago: wakes 40 s later", elastic: &elasticView{pods: pods, activity: now.Add(-20 * time.Second)},
			workers: 2, wake: now.Add(40 * time.Second)},
		{name: "the last step: no resize", workers: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, ch := j.derive(s, observation{replicas: running, elastic: tc.elastic, now: now})
			if got := n.Layout["worker"]; got != tc.workers || ch.urgent() != tc.resized || !ch.wake.Equal(tc.wake) {
				t.Errorf("workers %d, urgent %v, wake %v; want %d, %v, %v", got, ch.urgent(), ch.wake, tc.workers, tc.resized, tc.wake)
			}
			if !tc.resized {
				if n.LayoutGeneration != s.LayoutGeneration || len(ch.events) != 0 {
					t.Errorf("generation %d, events %+v: want %d, none", n.LayoutGeneration, ch.events, s.LayoutGeneration)
				}
				return
			}
			if n.LayoutGeneration != s.LayoutGeneration+1 || n.ResizedAt == nil || !n.ResizedAt.Time.Equal(now) {
				t.Errorf("generation %d, resized at %v: want %d, %v", n.LayoutGeneration, n.ResizedAt, s.LayoutGeneration+1, now)
			}
			want := []Event{{Type: "Normal", Reason: ReasonElasticResize, Action: "Resize", Note: tc.wantNote}}
			if diff := cmp.Diff(want, ch.events); diff != "" || !slices.Equal(ch.notes, []string{"elastic: " + tc.wantNote}) {
				t.Errorf("events (-want +got):\n%s\nnotes %q", diff, ch.notes)
			}
		})
	}
}
