package supervise

import (
	"fmt"
	"slices"
	"time"

	"github.com/tfgen/tfgen/pkg/record"
)

// Elastic is DRAGON's scaling strategy for a job's workers (opt-in with
// the job's annotation tfgen.io/elastic: dragon; on for DRAGON jobs): the
// job grows toward Max into idle capacity, and shrinks toward Min so that
// another elastic job of its namespace that waits for room can start.
// Elastic jobs find each other by their pods (label tfgen.io/elastic),
// which the keeper may already list: no right beyond its namespace's pods.
type Elastic struct {
	// Min and Max bound the job's workers (min-instances, max-instances).
	Min, Max int32
}

// DRAGON's times.
const (
	// elasticQuiet: a job grows only when no elastic pod of its namespace
	// came or went for that long.
	elasticQuiet = 60 * time.Second
	// elasticWait: a replica pending that long makes another job shrink
	// for its job, or, a job's own worker beyond its minimum, is taken
	// back.
	elasticWait = 30 * time.Second
	// elasticPace: the least time between two shrinks of a job, for the
	// scheduler to place what the first freed.
	elasticPace = 10 * time.Second
)

// ElasticPod is a pod of an elastic job of the keeper's namespace.
type ElasticPod struct {
	// Job is the pod's job.
	Job string
	// Ref names the replica.
	Ref
	// Min is its job's minimum of workers.
	Min int32
	// Scheduled: the pod is bound to a node.
	Scheduled bool
	// Since is when it was made, or found no room (PodScheduled False).
	Since time.Time
	// Deleting: the pod is going away.
	Deleting bool
}

// waiting reports whether the pod keeps its job from running: it is not
// scheduled, and it is not a worker beyond its job's minimum (one that a
// job grew by, which it takes back instead).
func (p ElasticPod) waiting() bool {
	return !p.Scheduled && !p.Deleting && (p.Type != "worker" || p.Index < p.Min)
}

// Neighbourhood is the keeper's view of the elastic pods of its
// namespace.
type Neighbourhood interface {
	// Changed receives after the pods changed, first once they were read.
	Changed() <-chan struct{}
	// Pods returns the pods as last seen.
	Pods() []ElasticPod
	// Activity returns when an elastic pod last came or went.
	Activity() time.Time
}

// elasticWorkers decides how many workers elastic job j should have now,
// by its status s and the elastic pods of its namespace (activity: when
// one last came or went), at now; why says why it changes, and wake when
// to decide again though nothing else changes. It is pure: a keeper that
// restarts decides from the same facts. In order:
//   - a worker the job grew by that stays pending is taken back;
//   - while another elastic job's replicas have waited for room longer
//     than elasticWait, the job that gives way, the one the most workers
//     above its minimum (by name on a tie), shrinks by what the longest
//     waiting job lacks, toward its minimum;
//   - with every elastic pod placed and none come or gone for
//     elasticQuiet, the job grows by one toward its maximum.
func (j *Job) elasticWorkers(s *record.Status, pods []ElasticPod, activity, now time.Time) (n int32, why string, wake time.Time) {
	e := j.Elastic
	n = j.at(s).replicas("worker")
	if e == nil || s == nil || s.StartTime == nil || s.Ended() || s.IsTrue(record.JobSuspended) {
		return n, "", time.Time{}
	}
	resized := time.Time{}
	if s.ResizedAt != nil {
		resized = s.ResizedAt.Time
	}
	wakeBy := func(t time.Time) {
		if t.After(now) && (wake.IsZero() || t.Before(wake)) {
			wake = t
		}
	}
	// Its own workers beyond the minimum that found no room.
	var pending []int32
	for _, p := range pods {
		if p.Job == j.Name && p.Type == "worker" && !p.Scheduled && !p.Deleting && p.Index >= e.Min && p.Index < n {
			if at := p.Since.Add(elasticWait); now.Before(at) {
				wakeBy(at)
			} else {
				pending = append(pending, p.Index)
			}
		}
	}
	if len(pending) > 0 {
		keep := max(e.Min, slices.Min(pending))
		return keep, fmt.Sprintf("worker %d found no room for %v", keep, elasticWait), wake
	}
	// The longest waiting of the other jobs.
	var longest *ElasticPod
	lacks := map[string]int32{}
	waiting := map[string]bool{}
	unplaced := false // some elastic pod found no room: none to grow into
	for i, p := range pods {
		unplaced = unplaced || (!p.Scheduled && !p.Deleting)
		if !p.waiting() {
			continue
		}
		waiting[p.Job] = true
		if p.Job == j.Name {
			continue
		}
		if at := p.Since.Add(elasticWait); now.Before(at) {
			wakeBy(at)
			continue
		}
		lacks[p.Job]++
		if longest == nil || p.Since.Before(longest.Since) {
			longest = &pods[i]
		}
	}
	if longest != nil {
		if j.Name != j.giver(s, pods, waiting) {
			return n, "", wake
		}
		if next := resized.Add(elasticPace); now.Before(next) {
			wakeBy(next)
			return n, "", wake
		}
		keep := max(e.Min, n-lacks[longest.Job])
		if keep < n {
			return keep, fmt.Sprintf("job %s has waited for room since %s", longest.Job, longest.Since.UTC().Format(time.RFC3339)), wake
		}
		return n, "", wake
	}
	if unplaced || n >= e.Max {
		return n, "", wake
	}
	if at := later(activity, resized).Add(elasticQuiet); now.Before(at) {
		wakeBy(at)
		return n, "", wake
	}
	return n + 1, fmt.Sprintf("no elastic pod of the namespace came or went for %v", elasticQuiet), wake
}

// resize resizes elastic job j's workers in status n as elasticWorkers
// decides by the elastic pods v (nil: none seen) at now: a new layout,
// counted by LayoutGeneration and stamped ResizedAt, which the enforcer
// sets on the StatefulSet and the supervisors take up. The decision's
// wake joins ch's.
func (j *Job) resize(n *record.Status, v *elasticView, now time.Time, ch *change) {
	if v == nil || j.Elastic == nil {
		return
	}
	from := j.at(n).replicas("worker")
	to, why, wake := j.elasticWorkers(n, v.pods, v.activity, now)
	if !wake.IsZero() {
		ch.wakeBy(wake)
	}
	if why == "" {
		return
	}
	if n.Layout == nil {
		n.Layout = map[string]int32{}
	}
	n.Layout["worker"] = to
	n.LayoutGeneration++
	at := record.NewTime(now)
	n.ResizedAt = &at
	note := fmt.Sprintf("workers %d -> %d: %s", from, to, why)
	ch.resized = true
	ch.events = append(ch.events, Event{Type: "Normal", Reason: ReasonElasticResize, Action: "Resize", Note: note})
	ch.notes = append(ch.notes, "elastic: "+note)
}

// giver returns the elastic job that gives way to a waiting one: of the
// jobs not waiting themselves, the one with the most workers above its
// minimum, by name on a tie; "" if none has any.
func (j *Job) giver(s *record.Status, pods []ElasticPod, waiting map[string]bool) string {
	above := map[string]int32{}
	for _, p := range pods {
		if p.Type == "worker" && !p.Deleting && p.Job != j.Name && p.Index >= p.Min && !waiting[p.Job] {
			above[p.Job]++
		}
	}
	if !waiting[j.Name] {
		above[j.Name] = j.at(s).replicas("worker") - j.Elastic.Min
	}
	best := ""
	for job, k := range above {
		if k > 0 && (best == "" || k > above[best] || (k == above[best] && job < best)) {
			best = job
		}
	}
	return best
}

// neighbours is the elastic pods of the namespace, nil when the job is
// not elastic.
func (kp *keeping) neighbours() Neighbourhood {
	if kp.Job.Elastic == nil {
		return nil
	}
	return kp.Neighbours
}

// neighboursChanged is the elastic pods' change notice (nil when the job
// is not elastic).
func (kp *keeping) neighboursChanged() <-chan struct{} {
	if n := kp.neighbours(); n != nil {
		return n.Changed()
	}
	return nil
}
