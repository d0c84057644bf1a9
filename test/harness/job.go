package harness

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/tfgen/tfgen/pkg/operate"
	"github.com/tfgen/tfgen/pkg/record"
)

// Job is a job tfgen rendered (or a test made in its shape), as a test
// sees it through the API server: the status in its record ConfigMap, its
// StatefulSets' replicas, the record each supervisor keeps on its pod,
// the supervisors' Events and the logs ConfigMap. Its pods are those
// labelled with its name (training.kubeflow.org/job-name), its
// StatefulSets those whose selector is.
//
// A read fails T on an API error. A wait lists and watches until its
// state holds, sees every state in order, tries a failed call again (a
// busy API server times requests out) and fails T with what it saw last
// once Timeout has passed.
type Job struct {
	// T is the test the job is part of.
	T testing.TB
	// Client talks to the API server: a control plane's client, or one
	// for a kubeconfig (ClientFor).
	Client kubernetes.Interface
	// Namespace and Name are the job's.
	Namespace, Name string
	// Timeout bounds each wait; Within gives the job with another.
	Timeout time.Duration
	// Started, if set, is when the job was started: WaitStatus logs how
	// long after it the state waited for came.
	Started time.Time
}

// ClientFor returns a client for kubeconfig's current context (a job's
// ServiceAccount, say), with the control plane's client's rate limits; t
// fails if the kubeconfig cannot be used.
func ClientFor(t testing.TB, kubeconfig string) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatalf("kubeconfig %s: %v", kubeconfig, err)
	}
	cfg.QPS, cfg.Burst = 100, 200
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("client for %s: %v", kubeconfig, err)
	}
	return cs
}

// Within returns a copy of the job whose waits take d at most.
func (j *Job) Within(d time.Duration) *Job {
	c := *j
	c.Timeout = d
	return &c
}

// Status reads the job's status from its record.
func (j *Job) Status() *record.Status {
	j.T.Helper()
	cm, err := j.Client.CoreV1().ConfigMaps(j.Namespace).Get(j.T.Context(), j.Name, metav1.GetOptions{})
	if err != nil {
		j.T.Fatal(err)
	}
	s, err := record.Parse(cm.Data)
	if err != nil {
		j.T.Fatal(err)
	}
	return s
}

// StatusJSON returns the record's status.json as stored, or the error
// that kept it from being read: for messages, so it never fails T.
func (j *Job) StatusJSON() string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cm, err := j.Client.CoreV1().ConfigMaps(j.Namespace).Get(ctx, j.Name, metav1.GetOptions{})
	if err != nil {
		return err.Error()
	}
	return cm.Data[record.DataKey]
}

// Replicas returns spec.replicas of each of the job's StatefulSets, by
// lowercase replica type.
func (j *Job) Replicas() map[string]int32 {
	j.T.Helper()
	list, err := j.Client.AppsV1().StatefulSets(j.Namespace).List(j.T.Context(), metav1.ListOptions{})
	if err != nil {
		j.T.Fatal(err)
	}
	out := map[string]int32{}
	for _, s := range list.Items {
		if typ, ok := j.replicaType(s.Spec.Selector); ok && s.Spec.Replicas != nil {
			out[typ] = *s.Spec.Replicas
		}
	}
	return out
}

// replicaType returns the replica type a StatefulSet's selector picks, if
// it picks the job's pods.
func (j *Job) replicaType(sel *metav1.LabelSelector) (string, bool) {
	if sel == nil || sel.MatchLabels[operate.LabelJobName] != j.Name {
		return "", false
	}
	typ, ok := sel.MatchLabels[operate.LabelReplicaType]
	return typ, ok
}

// Record returns the replica's record on pod, as its supervisor wrote it
// (the zero Replica if there is none yet), or its first start if the pod
// runs with none (record.Replica.OnPod).
func (j *Job) Record(pod string) record.Replica {
	j.T.Helper()
	p, err := j.Client.CoreV1().Pods(j.Namespace).Get(j.T.Context(), pod, metav1.GetOptions{})
	if err != nil {
		j.T.Fatal(err)
	}
	return onPod(p)
}

// onPod is the replica of pod p as the keeper sees it: its record, or
// its first start if p runs with none.
func onPod(p *corev1.Pod) record.Replica {
	r, _ := record.ReplicaFromAnnotations(p.Annotations)
	return r.OnPod(p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil)
}

// Pods lists the job's pods; it fails nothing, for conditions and checks
// of their own.
func (j *Job) Pods(ctx context.Context) ([]corev1.Pod, error) {
	list, err := j.Client.CoreV1().Pods(j.Namespace).List(ctx, j.podOptions())
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

func (j *Job) podOptions() metav1.ListOptions {
	return metav1.ListOptions{LabelSelector: operate.LabelJobName + "=" + j.Name}
}

// PodNames returns the names of pods, sorted.
func PodNames(pods []corev1.Pod) []string {
	out := make([]string, 0, len(pods))
	for _, p := range pods {
		out = append(out, p.Name)
	}
	slices.Sort(out)
	return out
}

// supervisorController is the reportingController of tfsupervisor's
// Events (pkg/supervise/report).
const supervisorController = "tfgen.io/tfsupervisor"

// Events lists the events.k8s.io/v1 Events tfsupervisor emitted about
// pod, or with pod "" about any of the job's pods (JOB-TYPE-INDEX).
func (j *Job) Events(pod string) []eventsv1.Event {
	j.T.Helper()
	list, err := j.Client.EventsV1().Events(j.Namespace).List(j.T.Context(), metav1.ListOptions{})
	if err != nil {
		j.T.Fatal(err)
	}
	var out []eventsv1.Event
	for _, e := range list.Items {
		about := e.Regarding.Kind == "Pod" && (e.Regarding.Name == pod || pod == "" && strings.HasPrefix(e.Regarding.Name, j.Name+"-"))
		if e.ReportingController == supervisorController && about {
			out = append(out, e)
		}
	}
	return out
}

// EventReasons returns the reasons of Events(pod), sorted, each once.
func (j *Job) EventReasons(pod string) []string {
	j.T.Helper()
	var out []string
	for _, e := range j.Events(pod) {
		out = append(out, e.Reason)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Logs returns the data of the job's logs ConfigMap: the end of the
// output of the replicas the keeper kept, by replica (worker-0).
func (j *Job) Logs() map[string]string {
	j.T.Helper()
	cm, err := j.Client.CoreV1().ConfigMaps(j.Namespace).Get(j.T.Context(), record.LogsName(j.Name), metav1.GetOptions{})
	if err != nil {
		j.T.Fatal(err)
	}
	return cm.Data
}
