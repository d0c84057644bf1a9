package render

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/job"
)

// TestCapabilitiesAsHelm checks that templates see .Capabilities.KubeVersion
// with Helm's fields, as `helm template --kube-version MAJOR.MINOR.0` sets
// them, and that a target that is not MAJOR.MINOR is refused.
func TestCapabilitiesAsHelm(t *testing.T) {
	r, err := New(fstest.MapFS{"caps.yaml": {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caps\n" +
		"data: {version: {{ .Capabilities.KubeVersion.Version }}, git: {{ .Capabilities.KubeVersion.GitVersion }}, " +
		"major: {{ .Capabilities.KubeVersion.Major | quote }}, minor: {{ .Capabilities.KubeVersion.Minor | quote }}}\n")}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		kube string
		want map[string]any // the ConfigMap's data; nil: refused
	}{
		{"", map[string]any{"version": "v1.37.0", "git": "v1.37.0", "major": "1", "minor": "37"}},
		{"1.34", map[string]any{"version": "v1.34.0", "git": "v1.34.0", "major": "1", "minor": "34"}},
		{"1.100", map[string]any{"version": "v1.100.0", "git": "v1.100.0", "major": "1", "minor": "100"}},
		{"1", nil}, {"v1.34", nil}, {"1.34.0", nil}, {"1.x", nil}, {"1.034", nil}, {"1.-3", nil}, {".34", nil},
	} {
		objs, err := r.RenderValues("j", "", map[string]any{}, Capabilities{KubeVersion: tc.kube})
		if tc.want == nil {
			if err == nil || !strings.Contains(err.Error(), "want MAJOR.MINOR") {
				t.Errorf("%q: err = %v, want it refused", tc.kube, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tc.kube, err)
		}
		if d := cmp.Diff(tc.want, objs[0]["data"]); d != "" {
			t.Errorf("%q: .Capabilities (-want +got):\n%s", tc.kube, d)
		}
	}
}

// TestRenderFollowsCapabilities checks that the objects follow the
// cluster's Kubernetes version unless the values' tfgen.kubeVersion says
// otherwise: from 1.36 the image volume, from 1.35 restart rules and
// --complete, before them the copy and neither; tfsupervisor's
// --kube-version names the minor chosen.
func TestRenderFollowsCapabilities(t *testing.T) {
	r := newRenderer(t)
	for _, tc := range []struct {
		cluster, values string // .Capabilities' and tfgen.kubeVersion
		image, complete bool
	}{
		{"1.37", "", true, true},
		{"1.36", "", true, true},
		{"1.35", "", false, true},
		{"1.34", "", false, false},
		{"1.37", "1.34", false, false},
		{"1.34", "1.37", true, true},
	} {
		s := settings()
		s.KubeVersion = tc.values
		objs, err := r.Render(mnist(), s, Capabilities{KubeVersion: tc.cluster})
		if err != nil {
			t.Fatalf("cluster %s, tfgen.kubeVersion %q: %v", tc.cluster, tc.values, err)
		}
		ps := podSpec(statefulSet(t, objs, "mnist-worker"))
		var image, copied bool
		for _, v := range ps["volumes"].([]any) {
			if v := v.(map[string]any); v["name"] == "tfgen-bin" {
				_, image = v["image"]
				_, copied = v["emptyDir"]
			}
		}
		var install bool
		for _, c := range ps["initContainers"].([]any) {
			install = install || c.(map[string]any)["name"] == "tfgen-install"
		}
		c := ps["containers"].([]any)[0].(map[string]any)
		_, rules := c["restartPolicyRules"]
		_, policy := c["restartPolicy"]
		command := c["command"].([]any)
		complete := slices.Contains(command, "--complete")
		want := tc.values
		if want == "" {
			want = tc.cluster
		}
		if i := slices.Index(command, "--kube-version"); i < 0 || command[i+1] != want {
			t.Errorf("cluster %s, tfgen.kubeVersion %q: tfsupervisor %v, want --kube-version %s", tc.cluster, tc.values, command, want)
		}
		if image != tc.image || copied == tc.image || install == tc.image || rules != tc.complete || policy != tc.complete || complete != tc.complete {
			t.Errorf("cluster %s, tfgen.kubeVersion %q: image volume %v, emptyDir %v, tfgen-install %v, restartPolicy %v, restartPolicyRules %v, --complete %v; want image volume %v, restart rules and --complete %v",
				tc.cluster, tc.values, image, copied, install, policy, rules, complete, tc.image, tc.complete)
		}
	}
}

// TestKubeVersionInMessages checks that a refusal names the target the
// templates chose: the values' tfgen.kubeVersion over the cluster's.
func TestKubeVersionInMessages(t *testing.T) {
	r := newRenderer(t)
	gang := func() *job.Job {
		j := mnist()
		j.Scheduler = &job.SchedulerSpec{Gang: "kubernetes"}
		return j
	}
	for _, tc := range []struct {
		j              *job.Job
		cluster, value string
		want           string
	}{
		{sidecar(mnist()), "1.34", "", "but the target is Kubernetes 1.34"},
		{sidecar(mnist()), "1.37", "1.34", "but the target is Kubernetes 1.34"},
		{gang(), "1.36", "", "Kubernetes 1.37 or later), but the target is Kubernetes 1.36"},
		{gang(), "1.37", "1.35", "Kubernetes 1.37 or later), but the target is Kubernetes 1.35"},
	} {
		s := settings()
		s.KubeVersion = tc.value
		if _, err := r.Render(tc.j, s, Capabilities{KubeVersion: tc.cluster}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("cluster %s, tfgen.kubeVersion %q: err = %v, want %q", tc.cluster, tc.value, err, tc.want)
		}
	}
}
