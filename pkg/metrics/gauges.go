package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tfgen/tfgen/pkg/record"
)

// gauges computes the Reader's gauges from its state at each scrape.
type gauges Reader

var (
	runningDesc = prometheus.NewDesc("tfgen_jobs_running", "Jobs whose replicas run (or restart)",
		[]string{labelNamespace, labelFramework}, nil)
	pendingDesc = prometheus.NewDesc("tfgen_jobs_pending", "Jobs created whose replicas have not started (waiting for admission, scheduling or images)",
		[]string{labelNamespace, labelFramework}, nil)
	replicasDesc = prometheus.NewDesc("tfgen_job_replicas", "A job's replicas of a type by state (active, succeeded, failed), as its status counts them",
		[]string{labelNamespace, "job_name", labelFramework, "replica_type", "state"}, nil)
	restartsDesc = prometheus.NewDesc("tfgen_job_restarts", "A job's restarts, as backoffLimit counts them",
		[]string{labelNamespace, "job_name", labelFramework}, nil)
	exitCodeDesc = prometheus.NewDesc("tfgen_job_last_exit_code", "The exit code of the last exit of a training process of a replica type",
		[]string{labelNamespace, "job_name", labelFramework, "replica_type"}, nil)
)

// Describe implements prometheus.Collector.
func (g *gauges) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{runningDesc, pendingDesc, replicasDesc, restartsDesc, exitCodeDesc} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (g *gauges) Collect(ch chan<- prometheus.Metric) {
	g.mu.Lock()
	defer g.mu.Unlock()
	type group struct{ ns, framework string }
	running, pending := map[group]float64{}, map[group]float64{}
	for _, s := range g.jobs {
		j := s.job
		if j == nil {
			continue
		}
		fw := framework(j)
		grp := group{s.namespace, fw}
		running[grp] += 0
		pending[grp] += 0
		switch j.State() {
		case string(record.JobRunning), string(record.JobRestarting):
			running[grp]++
		case string(record.JobCreated):
			pending[grp]++
		}
		for _, t := range j.Types() {
			c := j.Counts(t)
			for state, n := range map[string]int32{"active": c.Active, "succeeded": c.Succeeded, "failed": c.Failed} {
				ch <- prometheus.MustNewConstMetric(replicasDesc, prometheus.GaugeValue, float64(n), s.namespace, s.name, fw, t, state)
			}
		}
		ch <- prometheus.MustNewConstMetric(restartsDesc, prometheus.GaugeValue, float64(j.Status.Restarts), s.namespace, s.name, fw)
		for t, e := range s.exits {
			ch <- prometheus.MustNewConstMetric(exitCodeDesc, prometheus.GaugeValue, float64(e.code), s.namespace, s.name, fw, t)
		}
	}
	for grp, n := range running {
		ch <- prometheus.MustNewConstMetric(runningDesc, prometheus.GaugeValue, n, grp.ns, grp.framework)
		ch <- prometheus.MustNewConstMetric(pendingDesc, prometheus.GaugeValue, pending[grp], grp.ns, grp.framework)
	}
}
