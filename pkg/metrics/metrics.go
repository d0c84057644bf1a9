// Package metrics serves Prometheus metrics of the tfgen jobs of a
// namespace, or of every namespace: Kubeflow training-operator's job
// counters under its names and labels, so that dashboards and alerts
// written for it keep working, and tfgen's own gauges and histograms. It
// only reads: the jobs' records and pods, through one watch of each.
//
// A counter counts what the reader saw happen, once: a job it saw created,
// succeed, fail, restart or be deleted. What had happened before it first
// listed the jobs is never counted, so a restarted reader (whose counters
// start again from zero, as Prometheus expects) counts no job twice.
package metrics

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/operate"
	"github.com/tfgen/tfgen/pkg/record"
)

// Labels of the pods the reader follows.
const (
	labelJobName     = "training.kubeflow.org/job-name"
	labelReplicaType = "training.kubeflow.org/replica-type"
)

// Reader keeps what the metrics are computed from. Its On* methods take
// the records' and pods' changes, as informers deliver them.
type Reader struct {
	// Now is the clock; nil is time.Now.
	Now func() time.Time

	mu   sync.Mutex
	jobs map[string]*jobState // by namespace/name

	created, deleted, succeeded, failed, restarted *prometheus.CounterVec
	firstLaunch, allLaunch, stop                   *prometheus.HistogramVec
}

// jobState is one job as the reader knows it.
type jobState struct {
	namespace, name string
	uid             types.UID
	job             *operate.Job // nil until its record is seen
	// live: the reader saw it created, so follows its launch.
	live bool
	// counted: what of it the counters already hold.
	restarts         int32
	ended            bool
	firstRun, allRun bool // launch delays observed
	stopped          bool // stop delay observed
	pods             map[string]*podState
	exits            map[string]exitSeen // the last exit per replica type
}

// podState is one pod of a job.
type podState struct {
	replicaType string
	started     time.Time // the first start of a container of it
	rec         record.Replica
	gone        bool
}

type exitSeen struct {
	code int32
	at   time.Time
}

// Label names, Kubeflow's.
const (
	labelNamespace = "job_namespace"
	labelFramework = "framework"
)

// delayBuckets: from a second to about half an hour.
var delayBuckets = prometheus.ExponentialBuckets(0.5, 2, 13)

// stopBuckets: from 50 ms to about a minute.
var stopBuckets = prometheus.ExponentialBuckets(0.05, 2, 11)

// NewReader returns a Reader, its metrics registered in reg.
func NewReader(reg prometheus.Registerer) *Reader {
	counter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, []string{labelNamespace, labelFramework})
	}
	histogram := func(name, help string, buckets []float64) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, []string{labelNamespace, labelFramework})
	}
	r := &Reader{
		jobs:      map[string]*jobState{},
		created:   counter("training_operator_jobs_created_total", "Counts number of jobs created"),
		deleted:   counter("training_operator_jobs_deleted_total", "Counts number of jobs deleted"),
		succeeded: counter("training_operator_jobs_successful_total", "Counts number of jobs successful"),
		failed:    counter("training_operator_jobs_failed_total", "Counts number of jobs failed"),
		restarted: counter("training_operator_jobs_restarted_total", "Counts number of jobs restarted"),
		firstLaunch: histogram("tfgen_jobs_first_pod_launch_delay_seconds",
			"Time from a job's creation to its first replica's container running", delayBuckets),
		allLaunch: histogram("tfgen_jobs_all_pods_launch_delay_seconds",
			"Time from a job's creation to every replica's container running", delayBuckets),
		stop: histogram("tfgen_jobs_stop_delay_seconds",
			"Time from a job's end to the last training process it stopped having exited", stopBuckets),
	}
	reg.MustRegister(r.created, r.deleted, r.succeeded, r.failed, r.restarted, r.firstLaunch, r.allLaunch, r.stop, (*gauges)(r))
	return r
}

func (r *Reader) now() time.Time {
	if r.Now == nil {
		return time.Now()
	}
	return r.Now()
}

// state returns the state of job ns/name, new if need be.
func (r *Reader) state(ns, name string) *jobState {
	key := ns + "/" + name
	s := r.jobs[key]
	if s == nil {
		s = &jobState{namespace: ns, name: name, pods: map[string]*podState{}, exits: map[string]exitSeen{}}
		r.jobs[key] = s
	}
	return s
}

// OnRecord takes a job's record as added or changed. initial is true for
// the records of the reader's first list: what they say had happened
// before the reader, and is not counted.
func (r *Reader) OnRecord(cm *corev1.ConfigMap, initial bool) {
	j, err := operate.FromRecord(cm)
	if err != nil {
		return // not a record tfgen can read: nothing to count
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.state(cm.Namespace, cm.Name)
	if s.uid != cm.UID { // a new job, or one of the same name after a deletion
		*s = jobState{namespace: s.namespace, name: s.name, uid: cm.UID, pods: s.pods, exits: map[string]exitSeen{}, live: !initial}
		if initial {
			s.restarts, s.ended = j.Status.Restarts, j.Status.Ended()
		} else {
			r.created.WithLabelValues(s.labels(j)...).Inc()
		}
	}
	s.job = j
	if d := j.Status.Restarts - s.restarts; d > 0 {
		r.restarted.WithLabelValues(s.labels(j)...).Add(float64(d))
		s.restarts = j.Status.Restarts
	}
	if j.Status.Ended() && !s.ended {
		s.ended = true
		if j.Status.IsTrue(record.JobSucceeded) {
			r.succeeded.WithLabelValues(s.labels(j)...).Inc()
		} else {
			r.failed.WithLabelValues(s.labels(j)...).Inc()
		}
	}
	r.follow(s)
}

// OnRecordDeleted takes a job's record as deleted: the job is.
func (r *Reader) OnRecordDeleted(cm *corev1.ConfigMap) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := cm.Namespace + "/" + cm.Name
	s := r.jobs[key]
	if s == nil || s.job == nil {
		return
	}
	r.deleted.WithLabelValues(s.labels(s.job)...).Inc()
	delete(r.jobs, key)
}

// OnPod takes a job's pod as added or changed.
func (r *Reader) OnPod(p *corev1.Pod) { r.pod(p, false) }

// OnPodDeleted takes a job's pod as deleted, with its last status.
func (r *Reader) OnPodDeleted(p *corev1.Pod) { r.pod(p, true) }

func (r *Reader) pod(p *corev1.Pod, gone bool) {
	name := p.Labels[labelJobName]
	if name == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.state(p.Namespace, name)
	ps := s.pods[p.Name]
	if ps == nil {
		ps = &podState{replicaType: strings.ToLower(p.Labels[labelReplicaType])}
		s.pods[p.Name] = ps
	}
	ps.rec, _ = record.ReplicaFromAnnotations(p.Annotations)
	ps.gone = gone
	if t := firstStart(p); !t.IsZero() && (ps.started.IsZero() || t.Before(ps.started)) {
		ps.started = t
	}
	if c := ps.rec.LastExitCode; c != nil {
		if e, ok := s.exits[ps.replicaType]; !ok || !ps.rec.LastExitTime.Before(e.at) {
			s.exits[ps.replicaType] = exitSeen{code: *c, at: ps.rec.LastExitTime}
		}
	}
	r.follow(s)
	if s.job == nil && len(s.pods) == 0 {
		delete(r.jobs, s.namespace+"/"+s.name)
	}
}

// firstStart is when the first of p's containers started, zero if none.
func firstStart(p *corev1.Pod) time.Time {
	var first time.Time
	for _, cs := range p.Status.ContainerStatuses {
		var t time.Time
		switch {
		case cs.State.Running != nil:
			t = cs.State.Running.StartedAt.Time
		case cs.State.Terminated != nil:
			t = cs.State.Terminated.StartedAt.Time
		}
		if cs.LastTerminationState.Terminated != nil {
			t = cs.LastTerminationState.Terminated.StartedAt.Time
		}
		if !t.IsZero() && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	return first
}

// follow observes, once each, a live job's launch delays and its stop
// delay, as soon as the pods tell them; and forgets the pods it no longer
// needs.
func (r *Reader) follow(s *jobState) {
	j := s.job
	if j == nil || !s.live {
		s.dropGone()
		return
	}
	labels := s.labels(j)
	if !s.firstRun || !s.allRun {
		var first, last time.Time
		started := 0
		for _, ps := range s.pods {
			if ps.started.IsZero() {
				continue
			}
			started++
			if first.IsZero() || ps.started.Before(first) {
				first = ps.started
			}
			if ps.started.After(last) {
				last = ps.started
			}
		}
		if started > 0 && !s.firstRun {
			s.firstRun = true
			r.firstLaunch.WithLabelValues(labels...).Observe(max(first.Sub(j.Created), 0).Seconds())
		}
		if total := desired(j); total > 0 && started >= total && !s.allRun {
			s.allRun = true
			r.allLaunch.WithLabelValues(labels...).Observe(max(last.Sub(j.Created), 0).Seconds())
		}
	}
	if !s.stopped && j.Status.Ended() && j.Status.CompletionTime != nil {
		if at, done := s.lastStop(j.Status); done {
			s.stopped = true
			if !at.IsZero() {
				r.stop.WithLabelValues(labels...).Observe(max(at.Sub(j.Status.CompletionTime.Time), 0).Seconds())
			}
		}
	}
	if s.stopped || j.Status.Ended() && len(j.Status.Stop) == 0 {
		s.dropGone()
	}
}

// lastStop returns, once every replica of the types the job's end
// stopped has said how it ended (or its pod is gone), the last exit of
// one of them after the end (zero if none is known). The pods' watch may
// lag the records': a pod with no record yet has not said.
func (s *jobState) lastStop(st *record.Status) (at time.Time, done bool) {
	for _, ps := range s.pods {
		if !slices.Contains(st.Stop, ps.replicaType) {
			continue
		}
		if !ps.gone && (ps.rec.State == "" || ps.rec.State.Active()) {
			return time.Time{}, false
		}
		if t := ps.rec.LastExitTime; t.After(at) && !t.Before(st.CompletionTime.Time.Truncate(time.Second)) {
			at = t
		}
	}
	return at, true
}

// dropGone forgets the deleted pods.
func (s *jobState) dropGone() {
	for name, ps := range s.pods {
		if ps.gone {
			delete(s.pods, name)
		}
	}
}

// labels are a job's counters' and histograms' labels.
func (s *jobState) labels(j *operate.Job) []string {
	return []string{s.namespace, framework(j)}
}

// framework is Kubeflow's label value: tensorflow or mxnet.
func framework(j *operate.Job) string {
	if j.Spec.Framework() == job.MXNet {
		return string(job.MXNet)
	}
	return string(job.TensorFlow)
}

// desired is how many replicas the job runs.
func desired(j *operate.Job) int {
	n := 0
	for _, c := range j.Desired() {
		n += int(c)
	}
	return n
}
