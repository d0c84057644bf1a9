package record

import (
	"context"
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

func TestRoundTripAndRecount(t *testing.T) {
	s := &Status{Restarts: 3}
	s.Start(t0)
	code := int32(137)
	s.Replica("ps", 0).State = StateRunning
	s.Replica("worker", 0).State = StateSucceeded
	w1 := s.Replica("worker", 1)
	w1.State, w1.LastExitCode, w1.Restarts = StateFailed, &code, 3
	s.Replica("worker", 2).State = StateRestarting
	s.Recount()
	raw, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(map[string]string{DataKey: raw, "spec.json": "{}"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	want := map[string]*ReplicaStatus{"PS": {Active: 1}, "Worker": {Active: 1, Succeeded: 1, Failed: 1}}
	if diff := cmp.Diff(want, got.ReplicaStatuses); diff != "" {
		t.Errorf("replicaStatuses (-want +got):\n%s", diff)
	}
	var order []string
	for _, r := range got.ReplicaList() {
		order = append(order, Key(r.Type, r.Index))
	}
	if diff := cmp.Diff([]string{"ps-0", "worker-0", "worker-1", "worker-2"}, order); diff != "" {
		t.Errorf("ReplicaList (-want +got):\n%s", diff)
	}
	if empty, err := Parse(nil); err != nil || empty.Ended() || empty.Restarts != 0 {
		t.Errorf("Parse(nil) = %+v, %v", empty, err)
	}
	if _, err := Parse(map[string]string{DataKey: "{"}); err == nil {
		t.Error("Parse of bad JSON: want an error")
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
				s.Replica("worker", int32(i)).Restarts++
				return nil
			})
		}()
	}
	wg.Wait()
	s, _ := m.Get(context.Background())
	if s.Restarts != 64 || len(s.Replicas) != 64 {
		t.Errorf("restarts %d, replicas %d; want 64 each", s.Restarts, len(s.Replicas))
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
