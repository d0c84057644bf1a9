package node

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/record"
)

// tokenPath is where a container finds its ServiceAccount token.
const tokenPath = "/var/run/secrets/kubernetes.io/serviceaccount/token"

// TestTrainingContainerHoldsNoCredentials: the training container of a
// wrap-mode replica (chief) and of a sidecar-mode one (worker) has no
// token file, while their supervisors, holding the job's token in their
// own containers, report and end the job (under the admission policy).
func TestTrainingContainerHoldsNoCredentials(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	c.admissionPolicy(t)
	r := c.startJob(t, jobSpec{name: "creds", replicas: []replica{
		{kind: "Chief", n: 1, policy: "Never", args: []string{"--wait-for", "worker-0"}},
		{kind: "Worker", n: 1, policy: "Never", sidecar: true},
	}}, nil)
	s := r.WaitStatus("the job to end", (*record.Status).Ended)
	if !s.IsTrue(record.JobSucceeded) {
		t.Fatalf("the job did not succeed: %s", r.StatusJSON())
	}
	reports := r.reports()
	for replica, reps := range reports {
		for _, rep := range reps {
			if len(rep.Credentials) > 0 {
				t.Errorf("%s's training process can read API credentials: %v", replica, rep.Credentials)
			}
		}
	}
	if len(reports) != 2 {
		t.Errorf("%d replicas reported, want 2", len(reports))
	}
}

// TestUserServiceAccountKeepsItsRights: a job whose pod templates name the
// user's account runs the training container as that account (its cloud
// identity, say), leaves the account's rights as they were, and its
// supervisors still act as the job's own account (its token Secret).
func TestUserServiceAccountKeepsItsRights(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	c.admissionPolicy(t)
	ns := c.namespace(t, "usersa", nil)
	cs := c.cp.Client()
	ctx := t.Context()
	if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "trainer"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The account's own rights: reading one bucket's config, as it were.
	if _, err := cs.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "trainer"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"bucket"}, Verbs: []string{"get"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "trainer"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "trainer"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "trainer", Namespace: ns}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	before := c.rules(t, ns, "trainer")

	spec := jobSpec{name: "usersa", replicas: []replica{
		{kind: "Chief", n: 1, policy: "Never", args: []string{"--wait-for", "worker-0"}, edits: []testjob.Option{testjob.Pod(func(p *corev1.PodSpec) { p.ServiceAccountName = "trainer" })}},
		{kind: "Worker", n: 1, policy: "Never", sidecar: true, edits: []testjob.Option{testjob.Pod(func(p *corev1.PodSpec) { p.ServiceAccountName = "trainer" })}},
	}}
	r := c.render(t, spec, ns)
	r.Started = time.Now()
	r.apply()
	s := r.WaitStatus("the job to end", (*record.Status).Ended)
	if !s.IsTrue(record.JobSucceeded) {
		t.Fatalf("the job did not succeed: %s", r.StatusJSON())
	}
	after := c.rules(t, ns, "trainer")
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("the user's account's rights changed with the job (-before +after):\n%s", diff)
	}
	for _, rule := range after {
		if strings.HasPrefix(rule, "pods ") || rule == "*.* [] [] [*]" {
			t.Errorf("the training container's identity may touch pods: %s", rule)
		}
	}
	// The training processes hold the user's account (automounted, as the
	// user left it), nothing else.
	want := []string{tokenPath + " system:serviceaccount:" + ns + ":trainer"}
	for replica, reps := range r.reports() {
		for _, rep := range reps {
			if diff := cmp.Diff(want, rep.Credentials); diff != "" {
				t.Errorf("%s's training process's credentials (-want +got):\n%s", replica, diff)
			}
		}
	}
}

// rules lists what ServiceAccount ns/sa may do in ns.
func (c *cluster) rules(t *testing.T, ns, sa string) []string {
	t.Helper()
	rules, err := c.cp.Rules(t.Context(), bins.kubectl.Path, ns, sa)
	if err != nil {
		t.Fatal(err)
	}
	return rules
}

// admissionPolicy installs deploy/admission-policy.yaml, once: every job
// of the package that runs after it runs under it.
func (c *cluster) admissionPolicy(t *testing.T) {
	t.Helper()
	policyOnce.Do(func() { policyErr = c.cp.InstallAdmissionPolicy(bins.kubectl.Path) })
	if policyErr != nil {
		t.Fatal(policyErr)
	}
}

var (
	policyOnce sync.Once
	policyErr  error
)
