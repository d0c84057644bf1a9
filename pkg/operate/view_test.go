package operate

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/record"
)

// TestViewShape: the view reads as `kubectl get tfjob -o json` does, with
// Created from the record's creation, before any replica started.
func TestViewShape(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	j := testJob(func(j *Job) {
		j.Namespace, j.Created = "team-a", created
		j.Spec.Labels = map[string]string{"team": "a"}
		j.Scaled = map[string]int32{"worker": 6}
	})
	v, err := NewView(j, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"apiVersion": "kubeflow.org/v1",
		"kind":       "TFJob",
		"metadata":   map[string]any{"name": "j", "namespace": "team-a", "creationTimestamp": "2026-01-02T03:04:05Z", "labels": map[string]any{"team": "a"}},
		"spec": map[string]any{
			"runPolicy": map[string]any{},
			"tfReplicaSpecs": map[string]any{
				"PS":     map[string]any{"replicas": 2.0, "template": map[string]any{"metadata": map[string]any{}, "spec": map[string]any{"containers": nil}}},
				"Worker": map[string]any{"replicas": 6.0, "template": map[string]any{"metadata": map[string]any{}, "spec": map[string]any{"containers": nil}}},
			},
		},
		"status": map[string]any{
			"conditions": []any{map[string]any{"type": "Created", "status": "True", "reason": "TFJobCreated", "message": "TFJob team-a/j is created.",
				"lastUpdateTime": "2026-01-02T03:04:05Z", "lastTransitionTime": "2026-01-02T03:04:05Z"}},
			"replicaStatuses": map[string]any{"PS": map[string]any{}, "Worker": map[string]any{}},
			"restarts":        0.0,
			"state":           "Created",
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("view (-want +got):\n%s", diff)
	}

	// Once the keeper wrote Created, its condition is the one shown.
	started := created.Add(time.Minute)
	j.Status.Start(started)
	v, err = NewView(j, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := v.Status.Condition(record.JobCreated); c == nil || !c.LastTransitionTime.Equal(record.NewTime(started)) || len(v.Status.Conditions) != 1 {
		t.Errorf("conditions %+v, want the keeper's one Created", v.Status.Conditions)
	}

	// Once the keeper counted a type, its counts are shown; the other
	// type keeps its empty entry, and the record is left as it was.
	j.Status.ReplicaStatuses = map[string]*record.ReplicaStatus{"Worker": {Active: 3}}
	v, err = NewView(j, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantCounts := map[string]*record.ReplicaStatus{"PS": {}, "Worker": {Active: 3}}
	if diff := cmp.Diff(wantCounts, v.Status.ReplicaStatuses); diff != "" {
		t.Errorf("replicaStatuses (-want +got):\n%s", diff)
	}
	if len(j.Status.ReplicaStatuses) != 1 {
		t.Errorf("the job's own status changed: %+v", j.Status.ReplicaStatuses)
	}
}
