package cli

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/tfgen/tfgen/pkg/operate"
	"github.com/tfgen/tfgen/pkg/record"
)

// newTable returns a tabwriter laid out as kubectl's tables.
func newTable(w io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(w, 6, 4, 3, ' ', 0) }

// row writes cells as one tab-separated table row.
func row(w io.Writer, cells ...string) { fmt.Fprintln(w, strings.Join(cells, "\t")) }

// age formats the time from t to now as kubectl's AGE column does.
func age(t, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t))
}

// admissionText says how Kueue admits a job: its state, queue and why;
// for an admitted job whose pods Kueue finds not all Ready, since when
// and why; for an evicted one, when it goes back to its queue.
func admissionText(a *operate.Admission, now time.Time) string {
	s := fmt.Sprintf("%s in queue %s", a.State, a.Queue)
	if a.ClusterQueue != "" {
		s += fmt.Sprintf(" (ClusterQueue %s)", a.ClusterQueue)
	}
	switch {
	case a.Reason != "" && a.Message != "":
		s += fmt.Sprintf(": %s: %s", a.Reason, a.Message)
	case a.Message != "":
		s += ": " + a.Message
	}
	if c := a.NotReady; c != nil {
		s += fmt.Sprintf("; pods not all Ready for %s (%s: %s)", age(c.LastTransitionTime.Time, now), c.Reason, c.Message)
	}
	if at := a.RequeueAt; at != nil {
		if at.After(now) {
			s += fmt.Sprintf("; back in its queue in %s", duration.HumanDuration(at.Sub(now)))
		} else {
			s += "; back in its queue"
		}
	}
	return s
}

// evictionsText lists Kueue's evictions of a job: per reason, how many,
// how long ago the last was, and what Kueue said of it.
func evictionsText(es []operate.Eviction, now time.Time) string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = fmt.Sprintf("%s: %d, last %s ago", e.Reason, e.Count, age(e.Last.Time, now))
		if e.Message != "" {
			out[i] += ": " + e.Message
		}
	}
	return strings.Join(out, "; ")
}

// printList writes the jobs as `kubectl get tfjobs` would: NAME, STATE,
// AGE, then per replica type ACTIVE/SUCCEEDED/FAILED; with ADMISSION
// (state/queue) after AGE when Kueue admits any of them, from admissions
// by namespace/name.
func printList(w io.Writer, jobs []*operate.Job, admissions map[string]*operate.Admission, allNamespaces bool, now time.Time) error {
	seen := map[string]bool{}
	var types []string
	for _, j := range jobs {
		for _, t := range j.Types() {
			if !seen[t] {
				seen[t] = true
				types = append(types, t)
			}
		}
	}
	sort.Strings(types) // the order of --roles and of the record
	tw := newTable(w)
	head := []string{"NAME", "STATE", "AGE"}
	if len(admissions) > 0 {
		head = append(head, "ADMISSION")
	}
	if allNamespaces {
		head = append([]string{"NAMESPACE"}, head...)
	}
	for _, t := range types {
		head = append(head, strings.ToUpper(t))
	}
	row(tw, head...)
	for _, j := range jobs {
		cells := []string{j.Name, j.State(), age(j.Created, now)}
		if len(admissions) > 0 {
			adm := "-"
			if a := admissions[j.Namespace+"/"+j.Name]; a != nil {
				adm = a.State + "/" + a.Queue
			}
			cells = append(cells, adm)
		}
		if allNamespaces {
			cells = append([]string{j.Namespace}, cells...)
		}
		has := map[string]bool{}
		for _, t := range j.Types() {
			has[t] = true
		}
		for _, t := range types {
			if !has[t] {
				cells = append(cells, "-")
				continue
			}
			c := j.Counts(t)
			cells = append(cells, fmt.Sprintf("%d/%d/%d", c.Active, c.Succeeded, c.Failed))
		}
		row(tw, cells...)
	}
	return tw.Flush()
}

// printStatus writes view v as a report: the job, its conditions, its
// replica counts per type and its replicas.
func printStatus(w io.Writer, v *operate.View, now time.Time) error {
	s := &v.Status.Status
	tw := newTable(w)
	row(tw, "Name:", v.Metadata.Name)
	row(tw, "Namespace:", v.Metadata.Namespace)
	row(tw, "State:", v.Status.State)
	if a := v.Status.Admission; a != nil {
		row(tw, "Admission:", admissionText(a, now))
		if len(a.Evictions) > 0 {
			row(tw, "Evictions:", evictionsText(a.Evictions, now))
		}
	}
	row(tw, "Start Time:", timeAgo(s.StartTime, now))
	row(tw, "Completion Time:", timeAgo(s.CompletionTime, now))
	if s.StartTime != nil {
		end := now
		if s.CompletionTime != nil {
			end = s.CompletionTime.Time
		}
		row(tw, "Duration:", duration.HumanDuration(end.Sub(s.StartTime.Time)))
	}
	row(tw, "Restarts:", strconv.Itoa(int(s.Restarts)))
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(s.Conditions) > 0 {
		fmt.Fprintln(w)
		tw = newTable(w)
		row(tw, "CONDITION", "STATUS", "REASON", "AGE", "MESSAGE")
		for _, c := range s.Conditions {
			row(tw, string(c.Type), string(c.Status), dash(c.Reason), age(c.LastTransitionTime.Time, now), dash(c.Message))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(s.ReplicaStatuses) > 0 {
		fmt.Fprintln(w)
		tw = newTable(w)
		row(tw, "TYPE", "ACTIVE", "SUCCEEDED", "FAILED")
		for _, t := range statusTypes(s) {
			c := s.ReplicaStatuses[t]
			row(tw, t, strconv.Itoa(int(c.Active)), strconv.Itoa(int(c.Succeeded)), strconv.Itoa(int(c.Failed)))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(v.Status.Replicas) > 0 {
		fmt.Fprintln(w)
		tw = newTable(w)
		row(tw, "REPLICA", "STATE", "RESTARTS", "EXIT CODE", "REASON", "POD", "PHASE", "NODE")
		for _, r := range v.Status.Replicas {
			code := "-"
			if r.LastExitCode != nil {
				code = strconv.Itoa(int(*r.LastExitCode))
			}
			row(tw, r.Name, dash(string(r.State)), strconv.Itoa(int(r.Restarts)), code, dash(r.Reason), dash(r.Pod), dash(r.Phase), dash(r.Node))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// statusTypes returns the keys of replicaStatuses, sorted.
func statusTypes(s *record.Status) []string {
	out := make([]string, 0, len(s.ReplicaStatuses))
	for t := range s.ReplicaStatuses {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// timeAgo writes t in RFC 3339 with its age, or <none>.
func timeAgo(t *record.Time, now time.Time) string {
	if t == nil || t.IsZero() {
		return "<none>"
	}
	return fmt.Sprintf("%s (%s ago)", t.UTC().Format(time.RFC3339), duration.HumanDuration(now.Sub(t.Time)))
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
