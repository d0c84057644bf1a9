package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/tfgen/tfgen/pkg/record"
)

// TestTrainingContainerHoldsNoCredentials: the training container of a
// wrap-mode replica (chief) and of a sidecar-mode one (worker) can read no
// API credentials, while their supervisors report and end the job.
func TestTrainingContainerHoldsNoCredentials(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	r := c.startJob(t, jobSpec{name: "creds", replicas: []replica{
		{kind: "Chief", n: 1, policy: "Never", args: []string{"--wait-for", "worker-0"}},
		{kind: "Worker", n: 1, policy: "Never", sidecar: true},
	}}, nil)
	s := r.waitStatus("the job to end", (*record.Status).Ended)
	if !s.IsTrue(record.JobSucceeded) {
		t.Fatalf("the job did not succeed: %s", r.statusJSON())
	}
	for replica, reps := range r.reports() {
		for _, rep := range reps {
			if len(rep.Credentials) > 0 {
				t.Errorf("%s's training process can read API credentials: %v", replica, rep.Credentials)
			}
		}
	}
	if got := len(r.reports()); got != 2 {
		t.Errorf("%d replicas reported, want 2", got)
	}
}

// TestUserServiceAccountKeepsItsRights: a job whose pod template names
// the user's account runs as that account in the training container (its
// cloud identity, say), leaves the account's rights as they were, and its
// supervisors still act as the job's own account.
func TestUserServiceAccountKeepsItsRights(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
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

	// The pods stay (cleanPodPolicy None), and with them the tokens bound
	// to them, which the test asks the API server about.
	spec := jobSpec{name: "usersa", runPolicy: object{"cleanPodPolicy": "None"}, replicas: []replica{
		{kind: "Chief", n: 1, policy: "Never", args: []string{"--wait-for", "worker-0"}, template: object{"serviceAccountName": "trainer"}},
		{kind: "Worker", n: 1, policy: "Never", sidecar: true, template: object{"serviceAccountName": "trainer"}},
	}}
	r := &run{t: t, c: c, spec: spec, ns: ns, dir: t.TempDir(), began: time.Now()}
	r.manifests = tfgen(t, spec.manifest(ns, r.dir), "render", "-f", "-")
	r.apply()
	s := r.waitStatus("the job to end", (*record.Status).Ended)
	if !s.IsTrue(record.JobSucceeded) {
		t.Fatalf("the job did not succeed: %s", r.statusJSON())
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
	for replica, reps := range r.reports() {
		for _, rep := range reps {
			if len(rep.Credentials) != 1 {
				t.Errorf("%s's training process: credentials %v, want the user's account's", replica, rep.Credentials)
				continue
			}
			if who := whoAmI(t, c, rep.Credentials[0]); who != "system:serviceaccount:"+ns+":trainer" {
				t.Errorf("%s's training process acts as %q, want the user's account", replica, who)
			}
		}
	}
}

// whoAmI asks the API server who the credentials ("KUBECONFIG=path")
// belong to.
func whoAmI(t *testing.T, c *cluster, cred string) string {
	t.Helper()
	path, ok := strings.CutPrefix(cred, "KUBECONFIG=")
	if !ok {
		t.Fatalf("credentials %q: the node agent gives a KUBECONFIG", cred)
	}
	out := kubectl(path, nil, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")
	if out.err != nil {
		t.Fatalf("kubectl auth whoami: %v\n%s", out.err, out.stderr)
	}
	return out.stdout
}

// TestAdmissionPolicy: with deploy/admission-policy.yaml (installed for the
// whole suite, so every other test's job also runs under it), a job's
// account may change the labels and annotations of its own pod, with a
// token bound to that pod; not another pod of its job, not another
// workload's pod (which its Role alone would allow), not a pod's spec.
func TestAdmissionPolicy(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	ns := c.namespace(t, "policy", nil)
	// The job's account, Role and binding only; the pods are made here and
	// stay Pending (no node matches them): only their objects matter.
	spec := jobSpec{name: "alpha", replicas: []replica{{kind: "Worker", n: 2, policy: "Never"}}}
	c.mustKubectl(t, tfgen(t, spec.manifest(ns, t.TempDir()), "render", "-f", "-"), "apply", "-n", ns, "-l", "app.kubernetes.io/component=job", "-f", "-")
	cs := c.cp.Client()
	ctx := t.Context()
	pod := func(name string, labels map[string]string) *corev1.Pod {
		p, err := cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
			Spec: corev1.PodSpec{ServiceAccountName: "alpha-tfjob", NodeSelector: map[string]string{"tfgen.test/none": "none"}, Containers: []corev1.Container{{Name: "main", Image: workloadImage}}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	jobLabels := map[string]string{"training.kubeflow.org/job-name": "alpha", "training.kubeflow.org/replica-type": "worker"}
	own := pod("alpha-worker-0", jobLabels)
	pod("alpha-worker-1", jobLabels)
	pod("notebook", map[string]string{"app": "notebook"})

	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "alpha-tfjob", &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: own.Name, UID: own.UID}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rc := rest.AnonymousClientConfig(c.cp.RestConfig())
	rc.BearerToken = tr.Status.Token
	asJob, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	annotate := `{"metadata":{"annotations":{"tfgen.io/state":"Running"}}}`
	// The policy is in force once the API server has loaded it.
	poll(t, "the admission policy in force", func(ctx context.Context) (bool, string, error) {
		_, err := asJob.CoreV1().Pods(ns).Patch(ctx, "notebook", types.MergePatchType, []byte(annotate), metav1.PatchOptions{})
		return err != nil && strings.Contains(err.Error(), "ValidatingAdmissionPolicy"), fmt.Sprint(err), nil
	})
	image := `{"spec":{"containers":[{"name":"main","image":"attacker.example/own:1"}]}}`
	relabel := `{"metadata":{"labels":{"training.kubeflow.org/job-name":"beta"}}}`
	cases := []struct {
		pod, patch string
		allowed    bool
	}{
		{"alpha-worker-0", annotate, true},
		{"alpha-worker-0", image, false},
		{"alpha-worker-0", relabel, false},
		{"alpha-worker-1", annotate, false},
		{"notebook", annotate, false},
		{"notebook", image, false},
	}
	for _, tc := range cases {
		_, err := asJob.CoreV1().Pods(ns).Patch(ctx, tc.pod, types.StrategicMergePatchType, []byte(tc.patch), metav1.PatchOptions{})
		if (err == nil) != tc.allowed {
			t.Errorf("patch %s %s as the job's account: %v, want allowed=%v", tc.pod, tc.patch, err, tc.allowed)
		} else if err != nil && !strings.Contains(err.Error(), "ValidatingAdmissionPolicy") {
			t.Errorf("patch %s %s was refused, but not by the policy: %v", tc.pod, tc.patch, err)
		}
	}
}

// installAdmissionPolicy installs deploy/admission-policy.yaml and waits
// until it refuses what it should, so that every test runs under it.
func installAdmissionPolicy(kubeconfig string) error {
	policy, err := os.ReadFile(filepath.Join("..", "..", "deploy", "admission-policy.yaml"))
	if err != nil {
		return err
	}
	if r := kubectl(kubeconfig, policy, "apply", "-f", "-"); r.err != nil {
		return fmt.Errorf("install the admission policy: %v\n%s", r.err, r.stderr)
	}
	// The policy takes effect once the API server has compiled it: its
	// status says when it was checked.
	r := kubectl(kubeconfig, nil, "wait", "--for=jsonpath={.status.observedGeneration}=1", "--timeout=60s",
		"validatingadmissionpolicy/tfgen-supervisor-pods")
	if r.err != nil {
		return fmt.Errorf("wait for the admission policy: %v\n%s", r.err, r.stderr)
	}
	return nil
}
