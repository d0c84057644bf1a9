package record

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func conds(s *Status) map[ConditionType]ConditionStatus {
	m := map[ConditionType]ConditionStatus{}
	for _, c := range s.Conditions {
		m[c.Type] = c.Status
	}
	return m
}

func TestConditions(t *testing.T) {
	s := &Status{}
	if s.Phase() != "" {
		t.Errorf("Phase of a new job %q", s.Phase())
	}
	s.Start(t0)
	s.SetCondition(JobRunning, "JobRunning", "", t0)
	s.SetCondition(JobRestarting, "JobRestarting", "", t0.Add(time.Second))
	if s.Phase() != JobRestarting {
		t.Errorf("Phase %q, want Restarting", s.Phase())
	}
	if diff := cmp.Diff(map[ConditionType]ConditionStatus{JobCreated: ConditionTrue, JobRunning: ConditionFalse, JobRestarting: ConditionTrue}, conds(s)); diff != "" {
		t.Errorf("after Restarting (-want +got):\n%s", diff)
	}
	s.SetCondition(JobRunning, "JobRunning", "", t0.Add(2*time.Second))
	if c := s.Condition(JobRunning); !c.LastTransitionTime.Time.Equal(t0.Add(2 * time.Second)) {
		t.Errorf("Running transition time %v, want the time it turned True again", c.LastTransitionTime)
	}
	s.SetCondition(JobRunning, "JobRunning", "", t0.Add(3*time.Second))
	if c := s.Condition(JobRunning); !c.LastTransitionTime.Time.Equal(t0.Add(2 * time.Second)) {
		t.Errorf("setting a True condition again moved its transition time to %v", c.LastTransitionTime)
	}
	s.Finish(false, "BackoffLimitExceeded", "too many", t0.Add(4*time.Second))
	s.Finish(true, "JobSucceeded", "", t0.Add(5*time.Second))
	want := map[ConditionType]ConditionStatus{JobCreated: ConditionTrue, JobRunning: ConditionFalse, JobRestarting: ConditionFalse, JobFailed: ConditionTrue}
	if diff := cmp.Diff(want, conds(s)); diff != "" {
		t.Errorf("after Finish (-want +got):\n%s", diff)
	}
	if s.Phase() != JobFailed {
		t.Errorf("Phase %q, want Failed", s.Phase())
	}
	if !s.Ended() || !s.CompletionTime.Time.Equal(t0.Add(4*time.Second)) {
		t.Errorf("ended %v at %v: the first outcome must stick", s.Ended(), s.CompletionTime)
	}
	if !s.StartTime.Time.Equal(t0) {
		t.Errorf("startTime %v", s.StartTime)
	}
}

func TestRoundTrip(t *testing.T) {
	s := &Status{Restarts: 3, RestartsOfGonePods: 1, RestartGrants: map[string]int32{"worker-2": 2}, Stop: []string{"ps"}, Teardown: []string{"ps"}}
	s.Start(t0)
	s.AddSucceeded("worker", 0)
	s.AddSucceeded("worker", 1)
	s.AddSucceeded("worker", 3)
	s.ReplicaStatuses = map[string]*ReplicaStatus{"PS": {Active: 1}, "Worker": {Active: 1, Succeeded: 3}}
	raw, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(raw, `"succeeded":{"worker":"0-1,3"}`) {
		t.Errorf("succeeded set not written as runs: %s", raw)
	}
	got, err := Parse(map[string]string{DataKey: raw, "spec.json": "{}"})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(s) || !got.HasSucceeded("worker", 3) || got.HasSucceeded("worker", 2) || got.HasSucceeded("ps", 0) {
		t.Errorf("round trip: %s", raw)
	}
	if empty, err := Parse(nil); err != nil || empty.Ended() || empty.Restarts != 0 {
		t.Errorf("Parse(nil) = %+v, %v", empty, err)
	}
	if _, err := Parse(map[string]string{DataKey: "{"}); err == nil {
		t.Error("Parse of bad JSON: want an error")
	}
}

func TestIndexSet(t *testing.T) {
	s := &IndexSet{}
	for _, i := range []int32{5, 1, 3, 2, 9, 0, 8, 2} {
		s.Add(i)
	}
	if got := s.String(); got != "0-3,5,8-9" {
		t.Errorf("String = %q", got)
	}
	if s.Count(9) != 6 || s.Count(100) != 7 || s.Count(0) != 0 {
		t.Errorf("Count: %d %d %d", s.Count(9), s.Count(100), s.Count(0))
	}
	s.Add(4)
	s.Add(6)
	s.Add(7)
	if got := s.String(); got != "0-9" {
		t.Errorf("runs joined: %q", got)
	}
	big := &IndexSet{}
	for i := range int32(10000) {
		big.Add(i)
	}
	if big.String() != "0-9999" || big.Count(10000) != 10000 {
		t.Errorf("10,000 indices: %q", big.String())
	}
	for _, bad := range []string{"3-1", "a", "1,1", "2-3,3", "-1"} {
		if _, err := ParseIndexSet(bad); err == nil {
			t.Errorf("ParseIndexSet(%q): want an error", bad)
		}
	}
	if p, err := ParseIndexSet("0-2147483646"); err != nil || p.Count(2147483647) != 2147483647 {
		t.Errorf("a long run parses in no time: %v", err)
	}
}

func TestReplicaAnnotations(t *testing.T) {
	code := int32(137)
	r := Replica{State: StateRestarting, Restarts: 2, LastExitCode: &code, Reason: "OOMKilled", LastExitID: "uid/1"}
	got, ok := ReplicaFromAnnotations(r.Annotations())
	if !ok || !cmp.Equal(r, got) {
		t.Errorf("round trip: %+v, %v", got, ok)
	}
	if _, ok := ReplicaFromAnnotations(map[string]string{"other": "x"}); ok {
		t.Error("a pod without a record has one")
	}
	if got, ok := ReplicaFromAnnotations(map[string]string{AnnotationState: "Running", AnnotationRestarts: "x", AnnotationLastExitCode: ""}); !ok || got.Restarts != 0 || got.LastExitCode != nil {
		t.Errorf("bad numbers read as absent: %+v", got)
	}
}

func TestMemoryConcurrentUpdates(t *testing.T) {
	m := &Memory{}
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.Update(context.Background(), func(s *Status) error {
				s.Restarts++
				s.AddSucceeded("worker", int32(i))
				return nil
			})
		}()
	}
	wg.Wait()
	s, _ := m.Get(context.Background())
	if s.Restarts != 64 || s.Succeeded["worker"].Count(64) != 64 {
		t.Errorf("restarts %d, succeeded %v; want 64 each", s.Restarts, s.Succeeded["worker"])
	}
	before, _ := m.Get(context.Background())
	got, err := m.Update(context.Background(), func(s *Status) error { s.Restarts = -1; return ErrNoChange })
	if err != nil || got.Restarts != 64 {
		t.Errorf("ErrNoChange: got %+v, %v", got.Restarts, err)
	}
	if after, _ := m.Get(context.Background()); !cmp.Equal(before, after) {
		t.Error("ErrNoChange wrote")
	}
}

func TestKubeflowType(t *testing.T) {
	for in, want := range map[string]string{"ps": "PS", "chief": "Chief", "tunertracker": "TunerTracker", "custom": "Custom", "": ""} {
		if got := KubeflowType(in); got != want {
			t.Errorf("KubeflowType(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMemoryWatch: a watcher gets the status as it is, then the latest
// after each change, and the channel closes with its context.
func TestMemoryWatch(t *testing.T) {
	m := &Memory{}
	ctx, cancel := context.WithCancel(context.Background())
	w := m.Watch(ctx)
	if s := <-w; s.Restarts != 0 {
		t.Fatalf("first %+v", s)
	}
	for range 3 {
		m.Update(ctx, func(s *Status) error { s.Restarts++; return nil })
	}
	for s := range w {
		if s.Restarts == 3 {
			break
		}
	}
	cancel()
	for range w {
	}
}
