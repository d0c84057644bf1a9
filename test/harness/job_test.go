package harness

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/tfgen/tfgen/pkg/record"
)

// failing is a test that a Job fails: Fatal ends the goroutine, keeping
// the message.
type failing struct {
	testing.TB
	msg string
}

func (f *failing) Helper()           {}
func (f *failing) Fatal(args ...any) { f.msg = fmt.Sprint(args...); runtime.Goexit() }
func (f *failing) Fatalf(format string, a ...any) {
	f.msg = fmt.Sprintf(format, a...)
	runtime.Goexit()
}

// run calls wait in a goroutine of its own and returns the message it
// failed with ("" if none).
func (f *failing) run(wait func()) string {
	done := make(chan struct{})
	go func() {
		defer close(done)
		wait()
	}()
	<-done
	return f.msg
}

func statusCM(restarts int32) *corev1.ConfigMap {
	s := &record.Status{Restarts: restarts}
	raw, err := s.Marshal()
	if err != nil {
		panic(err)
	}
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns"}, Data: map[string]string{record.DataKey: raw}}
}

// TestWaitStatusRetries: the lists a busy API server times out are tried
// again until the deadline.
func TestWaitStatusRetries(t *testing.T) {
	cs := fake.NewClientset(statusCM(0))
	var lists atomic.Int32
	cs.PrependReactor("list", "configmaps", func(k8stesting.Action) (bool, k8sruntime.Object, error) {
		switch lists.Add(1) {
		case 1, 2:
			return true, nil, apierrors.NewTimeoutError("busy", 1)
		case 3:
			if err := cs.Tracker().Update(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, statusCM(1), "ns"); err != nil {
				t.Error(err)
			}
		}
		return false, nil, nil
	})
	f := &failing{TB: t}
	j := &Job{T: f, Client: cs, Namespace: "ns", Name: "j", Timeout: time.Minute}
	var got *record.Status
	if msg := f.run(func() { got = j.WaitStatus("a restart", func(s *record.Status) bool { return s.Restarts == 1 }) }); msg != "" {
		t.Fatal(msg)
	}
	if got.Restarts != 1 || lists.Load() != 3 {
		t.Errorf("got restarts %d after %d lists, want 1 after 3", got.Restarts, lists.Load())
	}
}

// TestWaitStatusSeesEveryState: a state that lasts one write is seen.
func TestWaitStatusSeesEveryState(t *testing.T) {
	cs := fake.NewClientset(statusCM(0))
	watching := make(chan struct{})
	cs.PrependWatchReactor("configmaps", func(k8stesting.Action) (bool, watch.Interface, error) {
		close(watching)
		return false, nil, nil
	})
	go func() {
		<-watching
		for _, n := range []int32{1, 2} {
			if _, err := cs.CoreV1().ConfigMaps("ns").Update(context.Background(), statusCM(n), metav1.UpdateOptions{}); err != nil {
				t.Error(err)
			}
		}
	}()
	f := &failing{TB: t}
	j := &Job{T: f, Client: cs, Namespace: "ns", Name: "j", Timeout: time.Minute}
	var got *record.Status
	if msg := f.run(func() { got = j.WaitStatus("one restart", func(s *record.Status) bool { return s.Restarts == 1 }) }); msg != "" {
		t.Fatal(msg)
	}
	if got.Restarts != 1 {
		t.Errorf("got restarts %d, want 1", got.Restarts)
	}
}

// TestWaitGivesUp: a wait ends at its deadline, saying what it saw.
func TestWaitGivesUp(t *testing.T) {
	labels := map[string]string{"training.kubeflow.org/job-name": "j", "training.kubeflow.org/replica-type": "ps"}
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "j-ps", Namespace: "ns"},
		Spec: appsv1.StatefulSetSpec{Replicas: new(int32(1)), Selector: &metav1.LabelSelector{MatchLabels: labels}}}
	other := sts.DeepCopy()
	other.Name, other.Spec.Selector = "k-ps", &metav1.LabelSelector{MatchLabels: map[string]string{"training.kubeflow.org/job-name": "k"}}
	f := &failing{TB: t}
	j := &Job{T: f, Client: fake.NewClientset(sts, other), Namespace: "ns", Name: "j", Timeout: 200 * time.Millisecond}
	msg := f.run(func() { j.WaitReplicas(map[string]int32{"ps": 0}) })
	if want := "waiting for replicas map[ps:0]: gave up after 200ms: context deadline exceeded; last seen: map[ps:1]"; msg != want {
		t.Errorf("failed with %q, want %q", msg, want)
	}
}

// fakePods is an API server holding pods, and a channel told each time a
// watch of pods begins, so that a change made then comes through the
// watch.
func fakePods(pods ...k8sruntime.Object) (*fake.Clientset, <-chan struct{}) {
	cs := fake.NewClientset(pods...)
	watching := make(chan struct{}, 2)
	cs.PrependWatchReactor("pods", func(k8stesting.Action) (bool, watch.Interface, error) {
		watching <- struct{}{}
		return false, nil, nil
	})
	return cs, watching
}

// TestWaitRecordsAndPods: each pod's record satisfies the condition at
// some moment; the pods go.
func TestWaitRecordsAndPods(t *testing.T) {
	pod := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: map[string]string{"training.kubeflow.org/job-name": "j"}}}
	}
	running := pod("j-worker-0")
	running.Annotations = record.Replica{State: record.StateRunning, Reason: "Started"}.Annotations()
	cs, watching := fakePods(running, pod("j-worker-1"))
	f := &failing{TB: t}
	j := &Job{T: f, Client: cs, Namespace: "ns", Name: "j", Timeout: time.Minute}
	go func() {
		<-watching
		p := pod("j-worker-1")
		p.Annotations = record.Replica{State: record.StateRunning, Reason: "Started"}.Annotations()
		if _, err := cs.CoreV1().Pods("ns").Update(context.Background(), p, metav1.UpdateOptions{}); err != nil {
			t.Error(err)
		}
	}()
	if msg := f.run(func() {
		j.WaitRecords("both running", []string{"j-worker-0", "j-worker-1"}, func(r record.Replica) bool { return r.State == record.StateRunning })
	}); msg != "" {
		t.Fatal(msg)
	}
	go func() {
		<-watching
		for _, name := range []string{"j-worker-0", "j-worker-1"} {
			if err := cs.CoreV1().Pods("ns").Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
				t.Error(err)
			}
		}
	}()
	if msg := f.run(func() { j.WaitPods() }); msg != "" {
		t.Fatal(msg)
	}
	f = &failing{TB: t}
	soon := j.Within(100 * time.Millisecond)
	soon.T = f
	if msg := f.run(func() { soon.WaitPods("j-worker-0") }); !strings.Contains(msg, "last seen: []") {
		t.Errorf("waiting for a pod that is gone failed with %q, want the pods seen", msg)
	}
}

// TestWaitNodes: the nodes the pods are bound to, once each is; a pod
// left unbound is shown with the scheduler's reason.
func TestWaitNodes(t *testing.T) {
	pod := func(name, node string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: map[string]string{"training.kubeflow.org/job-name": "j"}},
			Spec: corev1.PodSpec{NodeName: node}}
	}
	pending := pod("j-worker-1", "")
	pending.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable",
		Message: "0/2 nodes are available: 2 Insufficient cpu."}}
	cs, watching := fakePods(pod("j-ps-0", "node-a"), pending)
	f := &failing{TB: t}
	j := &Job{T: f, Client: cs, Namespace: "ns", Name: "j", Timeout: time.Minute}
	go func() {
		<-watching
		if _, err := cs.CoreV1().Pods("ns").Update(context.Background(), pod("j-worker-1", "node-b"), metav1.UpdateOptions{}); err != nil {
			t.Error(err)
		}
	}()
	var got map[string]string
	if msg := f.run(func() { got = j.WaitNodes("j-ps-0", "j-worker-1") }); msg != "" {
		t.Fatal(msg)
	}
	if want := map[string]string{"j-ps-0": "node-a", "j-worker-1": "node-b"}; !maps.Equal(got, want) {
		t.Errorf("nodes %v, want %v", got, want)
	}

	cs = fake.NewClientset(pending)
	f = &failing{TB: t}
	j = &Job{T: f, Client: cs, Namespace: "ns", Name: "j", Timeout: 100 * time.Millisecond}
	want := "waiting [j-worker-1: Unschedulable: 0/2 nodes are available: 2 Insufficient cpu. j-worker-2: no pod]"
	if msg := f.run(func() { j.WaitNodes("j-worker-1", "j-worker-2") }); !strings.Contains(msg, want) {
		t.Errorf("waiting for unbound pods failed with %q, want %q", msg, want)
	}
}
