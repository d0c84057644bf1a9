package nodeagent

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestExpand(t *testing.T) {
	vars := map[string]string{"A": "a", "POD_NAMESPACE": "ns", "EMPTY": ""}
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"$(A)", "a"},
		{"x$(A)y$(A)", "xaya"},
		{"$(EMPTY)|", "|"},
		{"$(UNKNOWN)", "$(UNKNOWN)"},
		{"$$(A)", "$(A)"},
		{"$$", "$"},
		{"$", "$"},
		{"a$b", "a$b"},
		{"$(A", "$(A"},
		{`{"index":$(A),"ns":"$(POD_NAMESPACE)"}`, `{"index":a,"ns":"ns"}`},
	} {
		if got := Expand(tc.in, vars); got != tc.want {
			t.Errorf("Expand(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestShouldRestart(t *testing.T) {
	never := corev1.ContainerRestartPolicyNever
	rules := func(op corev1.ContainerRestartRuleOnExitCodesOperator, codes ...int32) []corev1.ContainerRestartRule {
		return []corev1.ContainerRestartRule{{Action: corev1.ContainerRestartRuleActionRestart,
			ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: op, Values: codes}}}
	}
	for _, tc := range []struct {
		name   string
		pod    corev1.RestartPolicy
		policy *corev1.ContainerRestartPolicy
		rules  []corev1.ContainerRestartRule
		init   bool
		code   int32
		want   bool
	}{
		{"Always after success", corev1.RestartPolicyAlways, nil, nil, false, 0, true},
		{"OnFailure after success", corev1.RestartPolicyOnFailure, nil, nil, false, 0, false},
		{"OnFailure after failure", corev1.RestartPolicyOnFailure, nil, nil, false, 1, true},
		{"Never", corev1.RestartPolicyNever, nil, nil, false, 1, false},
		{"container Never wins", corev1.RestartPolicyAlways, &never, nil, false, 1, false},
		{"rule In matches", corev1.RestartPolicyAlways, &never, rules(corev1.ContainerRestartRuleOnExitCodesOpIn, 137, 143), false, 137, true},
		{"rule In misses", corev1.RestartPolicyAlways, &never, rules(corev1.ContainerRestartRuleOnExitCodesOpIn, 137), false, 1, false},
		{"rule NotIn matches", corev1.RestartPolicyAlways, &never, rules(corev1.ContainerRestartRuleOnExitCodesOpNotIn, 0), false, 2, true},
		{"rule NotIn misses", corev1.RestartPolicyAlways, &never, rules(corev1.ContainerRestartRuleOnExitCodesOpNotIn, 0), false, 0, false},
		{"init after failure", corev1.RestartPolicyAlways, nil, nil, true, 1, true},
		{"init after success", corev1.RestartPolicyAlways, nil, nil, true, 0, false},
		{"init under Never", corev1.RestartPolicyNever, nil, nil, true, 1, false},
	} {
		pod := &corev1.Pod{Spec: corev1.PodSpec{RestartPolicy: tc.pod}}
		c := &corev1.Container{RestartPolicy: tc.policy, RestartPolicyRules: tc.rules}
		if got := shouldRestart(pod, c, tc.code, tc.init); got != tc.want {
			t.Errorf("%s: shouldRestart = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestImage(t *testing.T) {
	a := &Agent{cfg: Config{Images: map[string]Image{
		"registry.example/sup":    {Cmd: []string{"any tag"}},
		"registry.example/sup:v2": {Cmd: []string{"v2"}},
		"localhost:5000/app":      {Cmd: []string{"local"}},
	}}}
	for ref, want := range map[string]string{
		"registry.example/sup:v1":            "any tag",
		"registry.example/sup:v2":            "v2",
		"registry.example/sup":               "any tag",
		"registry.example/sup@sha256:abcdef": "any tag",
		"localhost:5000/app:1":               "local",
		"localhost:5000/app":                 "local",
		"registry.example/other:v1":          "",
	} {
		img, ok := a.image(ref)
		if got := ""; ok {
			got = img.Cmd[0]
			if got != want {
				t.Errorf("image(%q) = %q, want %q", ref, got, want)
			}
		} else if want != "" {
			t.Errorf("image(%q) not found, want %q", ref, want)
		}
	}
}

func TestCommandLineAndEnv(t *testing.T) {
	r := &podRun{dir: "/pods/u", volDir: "/v/u"}
	c := &corev1.Container{
		Name: "tensorflow",
		Args: []string{"--index=$(INDEX)", "/data/x", "$(MISSING)"},
		Env: []corev1.EnvVar{
			{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			{Name: "INDEX", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['apps.kubernetes.io/pod-index']"}}},
			{Name: "NODE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}},
			{Name: "WHO", Value: "$(POD_NAME)@$(NODE)"},
			{Name: "DATA", Value: "/data"},
		},
		VolumeMounts:           []corev1.VolumeMount{{Name: "data", MountPath: "/data"}, {Name: "bin", MountPath: "/data/bin", SubPath: "sub"}},
		TerminationMessagePath: "/dev/termination-log",
	}
	img := Image{Entrypoint: []string{"/entry"}, Cmd: []string{"ignored"}, Files: map[string]string{"/entry": "/local/entry"}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "j-worker-3", Labels: map[string]string{"apps.kubernetes.io/pod-index": "3"}},
		Spec: corev1.PodSpec{NodeName: "node-1"}}
	paths := r.paths(c, img, "/pods/u/termination/tensorflow-0")
	env, vars, err := containerEnv(c, pod, "10.88.0.1", []string{"PATH=/bin"}, paths)
	if err != nil {
		t.Fatal(err)
	}
	wantEnv := []string{"PATH=/bin", "POD_NAME=j-worker-3", "INDEX=3", "NODE=node-1", "WHO=j-worker-3@node-1", "DATA=/v/u/data"}
	if diff := cmp.Diff(wantEnv, env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	// No command: the image's entrypoint, with the container's args (the
	// image's cmd is dropped).
	wantArgv := []string{"/local/entry", "--index=3", "/v/u/data/x", "$(MISSING)"}
	if diff := cmp.Diff(wantArgv, commandLine(c, img, vars, paths)); diff != "" {
		t.Errorf("argv (-want +got):\n%s", diff)
	}
	for in, want := range map[string]string{
		"/data/bin/tfsupervisor": "/v/u/bin/sub/tfsupervisor",
		"/data":                  "/v/u/data",
		"/database":              "/database",
		"/dev/termination-log":   "/pods/u/termination/tensorflow-0",
		"relative/data":          "relative/data",
	} {
		if got := paths.resolve(in); got != want {
			t.Errorf("resolve(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStartable(t *testing.T) {
	now := metav1.Now()
	for _, tc := range []struct {
		name string
		pod  corev1.Pod
		want bool
	}{
		{"pending", corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodPending}}, true},
		{"being deleted", corev1.Pod{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: &now}}, false},
		{"succeeded", corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodSucceeded}}, false},
		{"failed", corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodFailed}}, false},
		{"scheduling-gated", corev1.Pod{Spec: corev1.PodSpec{SchedulingGates: []corev1.PodSchedulingGate{{Name: "tfgen.io/finished"}}}}, false},
	} {
		if got := startable(&tc.pod); got != tc.want {
			t.Errorf("%s: startable %v, want %v", tc.name, got, tc.want)
		}
	}
}
