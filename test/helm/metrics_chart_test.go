package helm

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	authv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// metricsChart installs `tfgen metrics`, the jobs' Prometheus exporter.
var metricsChart = filepath.Join(root, "charts", "tfgen-metrics")

// metricsImage is what every install of metricsChart must be given.
var metricsImage = []string{"--set", "image.repository=registry.example.com/tfgen", "--set", "image.tag=v0.1.0"}

// metricNames are the series `tfgen metrics` serves: the dashboard shows
// each of them.
var metricNames = []string{
	"training_operator_jobs_created_total", "training_operator_jobs_deleted_total",
	"training_operator_jobs_successful_total", "training_operator_jobs_failed_total",
	"training_operator_jobs_restarted_total",
	"tfgen_jobs_running", "tfgen_jobs_pending",
	"tfgen_job_replicas", "tfgen_job_restarts", "tfgen_job_last_exit_code",
	"tfgen_jobs_first_pod_launch_delay_seconds", "tfgen_jobs_all_pods_launch_delay_seconds",
	"tfgen_jobs_stop_delay_seconds",
}

// exporterRules are all the exporter may do: read the jobs' record
// ConfigMaps and pods.
var exporterRules = []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps", "pods"}, Verbs: []string{"get", "list", "watch"}}}

// renderMetrics renders metricsChart as release m in team-a with the image
// and args.
func renderMetrics(t *testing.T, args ...string) map[string]object {
	t.Helper()
	return parse(t, helm(t).Must(t, nil, append(append([]string{"template", "m", metricsChart, "-n", "team-a"}, metricsImage...), args...)...))
}

// decodeAs converts o to a typed object, failing on fields T does not know.
func decodeAs[T any](t *testing.T, o object) T {
	t.Helper()
	var v T
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.DisallowUnknownFields()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%s as %T: %v", key(o), v, err)
	}
	return v
}

// TestMetricsChartLint runs helm lint --strict with the defaults (no image:
// lint only warns) and with every option on.
func TestMetricsChartLint(t *testing.T) {
	for name, args := range map[string][]string{
		"defaults":   nil,
		"image":      metricsImage,
		"everything": append([]string{"--set", "allNamespaces=true,serviceMonitor.enabled=true,dashboard.enabled=true"}, metricsImage...),
	} {
		t.Run(name, func(t *testing.T) {
			out := helm(t).Must(t, nil, append([]string{"lint", "--strict", metricsChart}, args...)...)
			if !strings.Contains(string(out), "1 chart(s) linted, 0 chart(s) failed") || strings.Contains(string(out), "[WARNING]") {
				t.Errorf("helm lint --strict:\n%s", out)
			}
		})
	}
}

// TestMetricsChartDefaults renders the exporter of the release namespace:
// one Deployment of one pod running `tfgen metrics -n team-a` as the
// restricted Pod Security Standard has it, its ServiceAccount, Role,
// RoleBinding and Service, and no ServiceMonitor or dashboard. None is
// labelled as tfgen's, which the exporter would count.
func TestMetricsChartDefaults(t *testing.T) {
	objs := renderMetrics(t)
	want := []string{"Deployment team-a/m-tfgen-metrics", "Role team-a/m-tfgen-metrics", "RoleBinding team-a/m-tfgen-metrics",
		"Service team-a/m-tfgen-metrics", "ServiceAccount team-a/m-tfgen-metrics"}
	if d := cmp.Diff(want, keys(objs)); d != "" {
		t.Fatalf("objects (-want +got):\n%s", d)
	}
	for k, o := range objs {
		meta, _ := o["metadata"].(map[string]any)
		if labels, _ := meta["labels"].(map[string]any); labels["app.kubernetes.io/managed-by"] == "tfgen" {
			t.Errorf("%s is labelled app.kubernetes.io/managed-by=tfgen: the exporter would count it", k)
		}
	}

	d := decodeAs[appsv1.Deployment](t, objs["Deployment team-a/m-tfgen-metrics"])
	if *d.Spec.Replicas != 1 || d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		t.Errorf("replicas %d, strategy %q: want one pod, Recreate", *d.Spec.Replicas, d.Spec.Strategy.Type)
	}
	pod := d.Spec.Template
	if pod.Labels["app.kubernetes.io/managed-by"] == "tfgen" {
		t.Errorf("the exporter's pod is labelled app.kubernetes.io/managed-by=tfgen: it would count itself")
	}
	if pod.Spec.ServiceAccountName != "m-tfgen-metrics" || pod.Spec.AutomountServiceAccountToken == nil || !*pod.Spec.AutomountServiceAccountToken {
		t.Errorf("serviceAccountName %q, automountServiceAccountToken %v", pod.Spec.ServiceAccountName, pod.Spec.AutomountServiceAccountToken)
	}
	if sc := pod.Spec.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Errorf("pod securityContext %+v: want runAsNonRoot", sc)
	}
	healthz := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("metrics")}}}
	no, yes := false, true
	wantContainer := corev1.Container{
		Name:            "metrics",
		Image:           "registry.example.com/tfgen:v0.1.0",
		ImagePullPolicy: corev1.PullIfNotPresent,
		Command:         []string{"tfgen", "metrics", "--listen", ":8080", "-n", "team-a"},
		Ports:           []corev1.ContainerPort{{Name: "metrics", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
		StartupProbe:    healthz,
		ReadinessProbe:  healthz,
		LivenessProbe:   healthz,
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")},
		},
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: &no, ReadOnlyRootFilesystem: &yes, RunAsNonRoot: &yes,
			Capabilities:   &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
	}
	if len(pod.Spec.Containers) != 1 {
		t.Fatalf("containers: %+v", pod.Spec.Containers)
	}
	got := pod.Spec.Containers[0]
	// The probes' timing is the chart's to tune; what they ask is not.
	for _, p := range []*corev1.Probe{got.StartupProbe, got.ReadinessProbe, got.LivenessProbe} {
		if p != nil {
			*p = corev1.Probe{ProbeHandler: p.ProbeHandler}
		}
	}
	if d := cmp.Diff(wantContainer, got); d != "" {
		t.Errorf("exporter container (-want +got):\n%s", d)
	}

	svc := decodeAs[corev1.Service](t, objs["Service team-a/m-tfgen-metrics"])
	if d := cmp.Diff([]corev1.ServicePort{{Name: "metrics", Port: 8080, TargetPort: intstr.FromString("metrics"), Protocol: corev1.ProtocolTCP}}, svc.Spec.Ports); d != "" {
		t.Errorf("Service ports (-want +got):\n%s", d)
	}
	if d := cmp.Diff(d.Spec.Selector.MatchLabels, svc.Spec.Selector); d != "" {
		t.Errorf("the Service selects other pods than the Deployment's (-deployment +service):\n%s", d)
	}
}

// TestMetricsChartNamespaces renders the exporter of the release
// namespace, of another namespace and of every namespace: the command
// line says which, and RBAC grants exactly get, list and watch on
// ConfigMaps and pods there, to the exporter's ServiceAccount.
func TestMetricsChartNamespaces(t *testing.T) {
	for _, tc := range []struct {
		name        string
		args        []string
		role, bound string // "Kind namespace/name"
		flags       []string
	}{
		{"release namespace", nil, "Role team-a/m-tfgen-metrics", "RoleBinding team-a/m-tfgen-metrics", []string{"-n", "team-a"}},
		{"another namespace", []string{"--set", "namespace=team-b"}, "Role team-b/m-tfgen-metrics", "RoleBinding team-b/m-tfgen-metrics", []string{"-n", "team-b"}},
		{"all namespaces", []string{"--set", "allNamespaces=true"}, "ClusterRole /team-a-m-tfgen-metrics", "ClusterRoleBinding /team-a-m-tfgen-metrics", []string{"-A"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := renderMetrics(t, tc.args...)
			want := []string{"Deployment team-a/m-tfgen-metrics", "Service team-a/m-tfgen-metrics", "ServiceAccount team-a/m-tfgen-metrics", tc.role, tc.bound}
			sort.Strings(want)
			if d := cmp.Diff(want, keys(objs)); d != "" {
				t.Fatalf("objects (-want +got):\n%s", d)
			}
			d := decodeAs[appsv1.Deployment](t, objs["Deployment team-a/m-tfgen-metrics"])
			if want := append([]string{"tfgen", "metrics", "--listen", ":8080"}, tc.flags...); !cmp.Equal(want, d.Spec.Template.Spec.Containers[0].Command) {
				t.Errorf("command %q, want %q", d.Spec.Template.Spec.Containers[0].Command, want)
			}
			role := decodeAs[rbacv1.ClusterRole](t, objs[tc.role]) // a Role's fields are a ClusterRole's
			if d := cmp.Diff(exporterRules, role.Rules); d != "" {
				t.Errorf("%s rules (-want +got):\n%s", tc.role, d)
			}
			binding := decodeAs[rbacv1.RoleBinding](t, objs[tc.bound])
			kind, _ := objs[tc.role]["kind"].(string)
			if d := cmp.Diff(rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: kind, Name: role.Name}, binding.RoleRef); d != "" {
				t.Errorf("roleRef (-want +got):\n%s", d)
			}
			if d := cmp.Diff([]rbacv1.Subject{{Kind: "ServiceAccount", Name: d.Spec.Template.Spec.ServiceAccountName, Namespace: "team-a"}}, binding.Subjects); d != "" {
				t.Errorf("subjects (-want +got):\n%s", d)
			}
		})
	}
}

// TestMetricsChartServiceMonitor renders the ServiceMonitor: it scrapes
// the Service's metrics port at the interval given and carries the labels
// a Prometheus selects it by.
func TestMetricsChartServiceMonitor(t *testing.T) {
	objs := renderMetrics(t, "--set", "serviceMonitor.enabled=true,serviceMonitor.interval=15s,serviceMonitor.labels.release=prom")
	var sm struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
		Spec     struct {
			Selector          metav1.LabelSelector `json:"selector"`
			NamespaceSelector struct {
				MatchNames []string `json:"matchNames"`
			} `json:"namespaceSelector"`
			Endpoints []map[string]string `json:"endpoints"`
		} `json:"spec"`
	}
	o, ok := objs["ServiceMonitor team-a/m-tfgen-metrics"]
	if !ok || o["apiVersion"] != "monitoring.coreos.com/v1" {
		t.Fatalf("no monitoring.coreos.com/v1 ServiceMonitor among %v", keys(objs))
	}
	b, err := json.Marshal(o)
	if err == nil {
		err = json.Unmarshal(b, &sm)
	}
	if err != nil {
		t.Fatalf("ServiceMonitor %v: %v", o, err)
	}
	if sm.Metadata.Labels["release"] != "prom" {
		t.Errorf("labels %v: want release=prom", sm.Metadata.Labels)
	}
	if d := cmp.Diff([]map[string]string{{"port": "metrics", "path": "/metrics", "interval": "15s"}}, sm.Spec.Endpoints); d != "" {
		t.Errorf("endpoints (-want +got):\n%s", d)
	}
	svc := decodeAs[corev1.Service](t, objs["Service team-a/m-tfgen-metrics"])
	if len(sm.Spec.Selector.MatchLabels) == 0 {
		t.Errorf("the ServiceMonitor selects every Service: %+v", sm.Spec.Selector)
	}
	for k, v := range sm.Spec.Selector.MatchLabels {
		if svc.Labels[k] != v {
			t.Errorf("the ServiceMonitor selects %s=%s, which the Service (%v) lacks", k, v, svc.Labels)
		}
	}
	if d := cmp.Diff([]string{"team-a"}, sm.Spec.NamespaceSelector.MatchNames); d != "" {
		t.Errorf("namespaceSelector (-want +got):\n%s", d)
	}
}

// dashboard is the part of a Grafana dashboard the tests read.
type dashboard struct {
	UID           string `json:"uid"`
	SchemaVersion int    `json:"schemaVersion"`
	Templating    struct {
		List []struct {
			Name, Type string
			Query      any
		} `json:"list"`
	} `json:"templating"`
	Panels []struct {
		ID         int    `json:"id"`
		Type       string `json:"type"`
		Title      string `json:"title"`
		Datasource *struct {
			UID string `json:"uid"`
		} `json:"datasource"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

// TestMetricsChartDashboard renders the dashboard's ConfigMap: labelled
// for Grafana's sidecar, it holds dashboards/tfgen-jobs.json unchanged, a
// dashboard with a Prometheus data-source variable and a namespace
// variable, whose panels query every metric the exporter serves, each
// through the chosen data source.
func TestMetricsChartDashboard(t *testing.T) {
	objs := renderMetrics(t, "--set", "dashboard.enabled=true")
	cm := decodeAs[corev1.ConfigMap](t, objs["ConfigMap team-a/m-tfgen-metrics-dashboard"])
	if cm.Labels["grafana_dashboard"] != "1" {
		t.Errorf("labels %v: want grafana_dashboard=1", cm.Labels)
	}
	if len(cm.Data) != 1 {
		t.Fatalf("data keys %v: want tfgen-jobs.json", keys(cm.Data))
	}
	var rendered, file any
	if err := json.Unmarshal([]byte(cm.Data["tfgen-jobs.json"]), &rendered); err != nil {
		t.Fatalf("the ConfigMap's tfgen-jobs.json: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(metricsChart, "dashboards", "tfgen-jobs.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatalf("dashboards/tfgen-jobs.json: %v", err)
	}
	if d := cmp.Diff(file, rendered); d != "" {
		t.Errorf("the ConfigMap's dashboard differs from dashboards/tfgen-jobs.json (-file +rendered):\n%s", d)
	}

	var dash dashboard
	if err := json.Unmarshal([]byte(cm.Data["tfgen-jobs.json"]), &dash); err != nil {
		t.Fatal(err)
	}
	if dash.UID == "" || dash.SchemaVersion < 36 {
		t.Errorf("uid %q, schemaVersion %d", dash.UID, dash.SchemaVersion)
	}
	vars := map[string]string{}
	for _, v := range dash.Templating.List {
		q, _ := json.Marshal(v.Query)
		vars[v.Name] = v.Type + " " + string(q)
	}
	if !strings.HasPrefix(vars["datasource"], `datasource "prometheus"`) {
		t.Errorf("variable datasource is %q: want a prometheus data source", vars["datasource"])
	}
	if !strings.HasPrefix(vars["namespace"], "query ") || !strings.Contains(vars["namespace"], "label_values(training_operator_jobs_created_total, job_namespace)") {
		t.Errorf("variable namespace is %q", vars["namespace"])
	}
	ids := map[int]bool{}
	var exprs []string
	for _, p := range dash.Panels {
		if ids[p.ID] {
			t.Errorf("panel id %d twice", p.ID)
		}
		ids[p.ID] = true
		if p.Type != "row" && (p.Datasource == nil || p.Datasource.UID != "${datasource}" || len(p.Targets) == 0) {
			t.Errorf("panel %q queries no ${datasource}", p.Title)
		}
		for _, q := range p.Targets {
			exprs = append(exprs, q.Expr)
			if !strings.Contains(q.Expr, `job_namespace=~"$namespace"`) {
				t.Errorf("panel %q ignores the namespace variable: %s", p.Title, q.Expr)
			}
		}
	}
	all := strings.Join(exprs, "\n")
	for _, m := range metricNames {
		if !strings.Contains(all, m) {
			t.Errorf("no panel queries %s", m)
		}
	}
}

// TestMetricsChartBadValues checks that Helm refuses values the exporter
// cannot run with, naming the value, and renders nothing.
func TestMetricsChartBadValues(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no image", nil, "image.repository is required"},
		{"no repository", []string{"--set", "image.tag=v1"}, "image.repository is required"},
		{"no tag", []string{"--set", "image.repository=r/tfgen"}, "image.tag is required"},
		{"repository of the wrong type", append([]string{"--set", "image.repository=5"}, metricsImage[2:]...), "- at '/image/repository': got number, want string"},
		{"allNamespaces of the wrong type", append([]string{"--set-string", "allNamespaces=yes"}, metricsImage...), "- at '/allNamespaces': got string, want boolean"},
		{"a namespace and all namespaces", append([]string{"--set", "allNamespaces=true,namespace=team-b"}, metricsImage...), "set namespace or allNamespaces, not both"},
		{"misspelt value", append([]string{"--set", "serviceMonitor.intervall=1m"}, metricsImage...), "- at '/serviceMonitor': additional properties 'intervall' not allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := helm(t).Run(nil, append([]string{"template", "m", metricsChart, "-n", "team-a"}, tc.args...)...)
			if r.Err == nil || !strings.Contains(r.Stderr, tc.want) {
				t.Errorf("helm template %v: %v, want a failure saying %q:\n%s", tc.args, r.Err, tc.want, r.Stderr)
			}
			if r.Stdout != "" {
				t.Errorf("helm template failed but wrote:\n%s", r.Stdout)
			}
		})
	}
}

// TestMetricsChartInstall installs the exporter on the real control plane,
// into a namespace that enforces the restricted Pod Security Standard, for
// that namespace and for every namespace: the Deployment's pod is
// admitted, its ServiceAccount may read ConfigMaps and pods where it
// counts jobs and do nothing else, and helm uninstall leaves nothing.
func TestMetricsChartInstall(t *testing.T) {
	cp := controlplane.Shared(t)
	cs := cp.Client()
	for _, tc := range []struct {
		name string
		all  bool
	}{
		{"one namespace", false},
		{"all namespaces", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := harness.Namespace(t, cs, "helm-metrics", map[string]string{"pod-security.kubernetes.io/enforce": "restricted"})
			other := harness.Namespace(t, cs, "helm-metrics-other", nil)
			kube := []string{"--kubeconfig", cp.Kubeconfig(), "-n", ns}
			args := append([]string{"install", "metrics", metricsChart, "--set", "allNamespaces=" + strconv.FormatBool(tc.all)}, metricsImage...)
			helm(t).Must(t, nil, append(args, kube...)...)
			// A failed test leaves no ClusterRole behind on the shared control plane.
			t.Cleanup(func() { helm(t).Run(nil, append([]string{"uninstall", "metrics"}, kube...)...) })

			lister := newLister(t, cp, ns)
			waitFor(t, lister, "app.kubernetes.io/instance=metrics", []string{
				"Deployment " + ns + "/metrics-tfgen-metrics", "Service " + ns + "/metrics-tfgen-metrics", "ServiceAccount " + ns + "/metrics-tfgen-metrics",
			})
			// The ReplicaSet's pod exists only if admission let it in.
			poll(t, "the exporter's pod admitted", func(ctx context.Context) (bool, string, error) {
				pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/instance=metrics"})
				if err != nil || len(pods.Items) > 0 {
					return err == nil, "", err
				}
				events, err := cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "reason=FailedCreate"})
				if err != nil {
					return false, "", err
				}
				var seen []string
				for _, e := range events.Items {
					seen = append(seen, e.Message)
				}
				return false, strings.Join(seen, "\n"), nil
			})

			user := "system:serviceaccount:" + ns + ":metrics-tfgen-metrics"
			for _, c := range []struct {
				ns, verb, resource string
				want               bool
			}{
				{ns, "list", "pods", true}, {ns, "watch", "pods", true}, {ns, "get", "pods", true},
				{ns, "list", "configmaps", true}, {ns, "watch", "configmaps", true}, {ns, "get", "configmaps", true},
				{other, "list", "pods", tc.all}, {other, "watch", "configmaps", tc.all},
				{ns, "update", "configmaps", false}, {ns, "patch", "pods", false}, {ns, "delete", "pods", false},
				{ns, "list", "secrets", false}, {ns, "create", "events", false}, {ns, "list", "statefulsets", false},
			} {
				sar, err := cs.AuthorizationV1().SubjectAccessReviews().Create(t.Context(), &authv1.SubjectAccessReview{Spec: authv1.SubjectAccessReviewSpec{
					User: user, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns},
					ResourceAttributes: &authv1.ResourceAttributes{Namespace: c.ns, Verb: c.verb, Resource: c.resource},
				}}, metav1.CreateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if sar.Status.Allowed != c.want {
					t.Errorf("%s may %s %s in %s: %v, want %v", user, c.verb, c.resource, c.ns, sar.Status.Allowed, c.want)
				}
			}

			helm(t).Must(t, nil, append([]string{"uninstall", "metrics", "--wait"}, kube...)...)
			poll(t, "nothing of the release left", func(ctx context.Context) (bool, string, error) {
				left, err := lister.list(ctx, "app.kubernetes.io/instance=metrics")
				return len(left) == 0, strings.Join(left, ", "), err
			})
			roles, err := cs.RbacV1().ClusterRoles().List(t.Context(), metav1.ListOptions{LabelSelector: "app.kubernetes.io/instance=metrics"})
			if err != nil || len(roles.Items) > 0 {
				t.Errorf("ClusterRoles left after helm uninstall: %v %v", roles, err)
			}
		})
	}
}
