package record

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tfgen/tfgen/pkg/kube"
)

// fakeConfigMaps keeps one ConfigMap and refuses stale writes, as the API
// server does.
type fakeConfigMaps struct {
	mu        sync.Mutex
	cm        kube.ConfigMap
	conflicts int
	refuse    int // refuse this many writes first, as if others won each race
	gets      int
}

func (f *fakeConfigMaps) GetConfigMap(context.Context, string, string) (*kube.ConfigMap, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gets++
	c := f.cm
	c.Data = map[string]string{}
	for k, v := range f.cm.Data {
		c.Data[k] = v
	}
	return &c, nil
}

func (f *fakeConfigMaps) UpdateConfigMap(_ context.Context, cm *kube.ConfigMap) (*kube.ConfigMap, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if cm.ResourceVersion != f.cm.ResourceVersion || f.refuse > 0 {
		f.refuse--
		f.conflicts++
		return nil, &kube.APIError{Code: 409, Reason: "Conflict"}
	}
	rv, _ := strconv.Atoi(f.cm.ResourceVersion)
	f.cm = *cm
	f.cm.ResourceVersion = strconv.Itoa(rv + 1)
	return &f.cm, nil
}

func TestConfigMapStoreNoLostUpdate(t *testing.T) {
	f := &fakeConfigMaps{cm: kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Name: "j", Namespace: "ns", ResourceVersion: "1",
		Labels: map[string]string{"app.kubernetes.io/instance": "j"}}, Data: map[string]string{"spec.json": `{"x":1}`}}}
	store := &ConfigMap{Client: f, Namespace: "ns", Name: "j"}
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := store.Update(context.Background(), func(s *Status) error {
				s.Restarts++
				s.AddSucceeded("worker", int32(i))
				return nil
			}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	s, err := store.Get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s.Restarts != 50 || s.Succeeded["worker"].String() != "0-49" {
		t.Errorf("restarts %d, succeeded %v; want 50 and 0-49", s.Restarts, s.Succeeded["worker"])
	}
	if f.cm.Data["spec.json"] != `{"x":1}` || f.cm.Labels["app.kubernetes.io/instance"] != "j" {
		t.Errorf("the update lost the rest of the ConfigMap: %+v", f.cm)
	}
	t.Logf("%d conflicts retried", f.conflicts)
}

// TestConfigMapStoreKeepsRetrying: an update that keeps losing races keeps
// trying (past any backoff cap) until it wins or its context ends.
func TestConfigMapStoreKeepsRetrying(t *testing.T) {
	defer func(r kube.Retry) { writeRetry = r }(writeRetry)
	writeRetry.Initial, writeRetry.Max = time.Microsecond, 10*time.Microsecond
	f := &fakeConfigMaps{cm: kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Name: "j", ResourceVersion: "1"}}, refuse: 200}
	store := &ConfigMap{Client: f, Namespace: "ns", Name: "j"}
	s, err := store.Update(context.Background(), func(s *Status) error { s.Restarts++; return nil })
	if err != nil || s.Restarts != 1 {
		t.Fatalf("Update = %+v, %v", s, err)
	}
	f.refuse = 1 << 30
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := store.Update(ctx, func(s *Status) error { s.Restarts++; return nil }); err == nil || !kube.IsConflict(err) {
		t.Errorf("Update with the time up: %v, want the last Conflict", err)
	}
}

// TestConfigMapStoreReadsOnlyAfterConflict: a writer that was the last to
// write does not read before its next write; after someone else wrote, it
// reads again and loses nothing.
func TestConfigMapStoreReadsOnlyAfterConflict(t *testing.T) {
	f := &fakeConfigMaps{cm: kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Name: "j", ResourceVersion: "1"}}}
	a, b := &ConfigMap{Client: f, Namespace: "ns", Name: "j"}, &ConfigMap{Client: f, Namespace: "ns", Name: "j"}
	inc := func(s *Status) error { s.Restarts++; return nil }
	for range 3 {
		if _, err := a.Update(context.Background(), inc); err != nil {
			t.Fatal(err)
		}
	}
	if f.gets != 1 {
		t.Errorf("%d reads for 3 writes in a row, want 1", f.gets)
	}
	b.Update(context.Background(), inc)
	s, err := a.Update(context.Background(), inc)
	if err != nil || s.Restarts != 5 {
		t.Errorf("after another writer: %+v, %v; want 5 restarts", s, err)
	}
}
