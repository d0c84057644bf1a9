package node

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/test/harness"
	"github.com/tfgen/tfgen/test/prometheus"
)

// newReader starts `tfgen metrics` for namespace ns with the rights the
// chart gives it (get, list and watch on configmaps and pods).
func (c *cluster) newReader(t *testing.T, ns string) *harness.Metrics {
	t.Helper()
	ctx, cs := t.Context(), c.cp.Client()
	if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "tfgen-metrics"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "tfgen-metrics"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps", "pods"}, Verbs: []string{"get", "list", "watch"}}}}
	if _, err := cs.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "tfgen-metrics"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "tfgen-metrics"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "tfgen-metrics", Namespace: ns}}}
	if _, err := cs.RbacV1().RoleBindings(ns).Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kc, err := c.cp.ServiceAccountKubeconfig(ctx, ns, "tfgen-metrics")
	if err != nil {
		t.Fatal(err)
	}
	return harness.StartMetrics(t, bins.tfgen.Path, kc, ns)
}

// value is the sum of what expr gives, 0 when it gives nothing.
func value(t *testing.T, prom *prometheus.Server, expr string) float64 {
	t.Helper()
	res, err := prom.Query(t.Context(), expr)
	if err != nil {
		t.Fatalf("query %s: %v", expr, err)
	}
	sum := 0.0
	for _, v := range res {
		sum += v
	}
	return sum
}

// check waits until each query's value, as Prometheus last scraped it, is
// want's: the reader takes what its watches deliver a moment after the
// test saw it.
func check(t *testing.T, prom *prometheus.Server, what string, want map[string]float64) {
	t.Helper()
	poll(t, what, func(ctx context.Context) (bool, string, error) {
		prom.WaitScrape(t)
		var wrong []string
		for expr, v := range want {
			if got := value(t, prom, expr); got != v {
				wrong = append(wrong, fmt.Sprintf("%s = %v, want %v", expr, got, v))
			}
		}
		return len(wrong) == 0, strings.Join(wrong, "; "), nil
	})
}

// TestMetricsCountEachJobOnce: a real Prometheus scrapes `tfgen metrics`
// (with the chart's read-only rights) while jobs of one namespace
// succeed, fail, restart and are deleted: Kubeflow's counters count each
// once, the per-job gauges say what the status says, and the launch
// delays lie within the jobs' own timestamps. The reader is then
// restarted: its counters start from zero and count none of the jobs it
// finds again, only the one that comes after.
func TestMetricsCountEachJobOnce(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	ns := c.namespace(t, "metrics", nil)
	rd := c.newReader(t, ns)
	prom := prometheus.Start(t, rd.Addr)
	prom.WaitUp(t, rd.Addr)
	specs := []jobSpec{
		{name: "ok", replicas: []replica{
			{kind: "Chief", n: 1, policy: "ExitCode", args: []string{"--wait-for", "worker-0"}},
			{kind: "Worker", n: 1, policy: "OnFailure"}}},
		{name: "bad", exits: []string{"chief=1", "worker=block"}, replicas: []replica{
			{kind: "Chief", n: 1, policy: "ExitCode", args: []string{"--wait-for", "worker-0"}},
			{kind: "Worker", n: 1, policy: "OnFailure"}}},
		{name: "retry", runPolicy: job.RunPolicy{BackoffLimit: new(int32(3))}, exits: []string{"chief=137,0"}, replicas: []replica{
			{kind: "Chief", n: 1, policy: "ExitCode", args: []string{"--wait-for", "worker-0"}},
			{kind: "Worker", n: 1, policy: "OnFailure"}}},
	}
	runs := map[string]*run{}
	for _, s := range specs {
		r := c.render(t, s, ns)
		r.Started = time.Now()
		r.apply()
		runs[s.name] = r
	}
	// Every replica's container started before its job ended: the launch
	// delays lie between 0 and the jobs' runs, by their own timestamps.
	var lived, stopped float64
	for _, name := range []string{"ok", "bad", "retry"} {
		r := runs[name]
		s := r.WaitStatus("the job to end", (*record.Status).Ended)
		if len(s.Stop) > 0 { // its end stopped replicas (bad's worker; another's racing its chief)
			stopped++
		}
		cm, err := c.cp.Client().CoreV1().ConfigMaps(ns).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		lived += s.CompletionTime.Sub(cm.CreationTimestamp.Time).Seconds() + 1 // creation is to the second
		r.WaitReplicas(map[string]int32{"chief": 0, "worker": 0})
		r.WaitPods()
	}
	bins.kubectl.Must(t, c.cp.Kubeconfig(), runs["ok"].manifests, "delete", "-n", ns, "-f", "-", "--wait")
	prom.WaitScrape(t)
	sel := fmt.Sprintf(`{job_namespace=%q,framework="tensorflow"}`, ns)
	check(t, prom, "the first reader", map[string]float64{
		"training_operator_jobs_created_total" + sel:                                  3,
		"training_operator_jobs_successful_total" + sel:                               2,
		"training_operator_jobs_failed_total" + sel:                                   1,
		"training_operator_jobs_restarted_total" + sel:                                1,
		"training_operator_jobs_deleted_total" + sel:                                  1,
		"tfgen_jobs_running" + sel:                                                    0,
		"tfgen_jobs_pending" + sel:                                                    0,
		"tfgen_jobs_first_pod_launch_delay_seconds_count" + sel:                       3,
		"tfgen_jobs_all_pods_launch_delay_seconds_count" + sel:                        3,
		`tfgen_job_replicas{job_name="bad",replica_type="chief",state="failed"}`:      1,
		`tfgen_job_replicas{job_name="retry",replica_type="chief",state="succeeded"}`: 1,
		`tfgen_job_restarts{job_name="retry"}`:                                        1,
		`tfgen_job_last_exit_code{job_name="bad",replica_type="chief"}`:               1,
		`tfgen_job_last_exit_code{job_name="retry",replica_type="chief"}`:             0,
		"tfgen_jobs_stop_delay_seconds_count" + sel:                                   stopped,
	})
	first := value(t, prom, "tfgen_jobs_first_pod_launch_delay_seconds_sum"+sel)
	all := value(t, prom, "tfgen_jobs_all_pods_launch_delay_seconds_sum"+sel)
	if first < 0 || all < first || all > lived {
		t.Errorf("launch delays: first pods %.3f s, all pods %.3f s in all; want 0 <= first <= all <= %.3f s, the jobs' runs", first, all, lived)
	}
	if v := value(t, prom, `tfgen_job_replicas{job_name="ok"}`); v != 0 {
		t.Errorf("the deleted job still has replica gauges (%v)", v)
	}

	rd.Stop()
	rd.Start()
	prom.WaitScrape(t)
	check(t, prom, "the reader restarted, the jobs it found not counted again", map[string]float64{
		"training_operator_jobs_created_total" + sel:    0,
		"training_operator_jobs_successful_total" + sel: 0,
		"training_operator_jobs_failed_total" + sel:     0,
		"training_operator_jobs_restarted_total" + sel:  0,
		`tfgen_job_restarts{job_name="retry"}`:          1,
	})
	after := c.render(t, jobSpec{name: "after", replicas: []replica{{kind: "Worker", n: 2, policy: "OnFailure"}}}, ns)
	after.Started = time.Now()
	after.apply()
	after.WaitStatus("the job to end", (*record.Status).Ended)
	prom.WaitScrape(t)
	check(t, prom, "a job after the restart", map[string]float64{
		"training_operator_jobs_created_total" + sel:    1,
		"training_operator_jobs_successful_total" + sel: 1,
	})
}
