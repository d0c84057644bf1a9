package supervise_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/kube"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// TestPodNeedsDropped: what a pod lacks of its render, as an API server
// older than the render's target leaves it.
func TestPodNeedsDropped(t *testing.T) {
	whole := kube.PodSpec{Volumes: []kube.Volume{{Name: "data"}, {Name: supervise.SupervisorVolume}},
		Containers: []kube.Container{{Name: "tensorflow", RestartPolicy: "Never"}, {Name: "tfsupervisor"}}}
	noVolume := whole
	noVolume.Volumes = whole.Volumes[:1]
	noRules := whole
	noRules.Containers = []kube.Container{{Name: "tensorflow"}, {Name: "tfsupervisor"}}
	for _, tc := range []struct {
		name  string
		spec  kube.PodSpec
		needs supervise.PodNeeds
		want  []string // words each finding holds
	}{
		{"whole", whole, supervise.PodNeeds{Target: "1.37", RestartRules: true}, nil},
		{"image volume dropped", noVolume, supervise.PodNeeds{Target: "1.37", RestartRules: true}, []string{"volume tfgen-bin"}},
		{"restart rules dropped", noRules, supervise.PodNeeds{Target: "1.35", RestartRules: true}, []string{"restartPolicy and restartPolicyRules"}},
		{"restart rules not rendered", noRules, supervise.PodNeeds{Target: "1.34"}, nil},
		{"both dropped", kube.PodSpec{Containers: noRules.Containers}, supervise.PodNeeds{Target: "1.37", RestartRules: true},
			[]string{"volume tfgen-bin", "restartPolicy and restartPolicyRules"}},
		{"a render that names no target is not checked", kube.PodSpec{}, supervise.PodNeeds{RestartRules: true}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.needs.Dropped(&kube.Pod{Spec: tc.spec})
			if len(got) != len(tc.want) {
				t.Fatalf("Dropped = %q, want %d findings (%q)", got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("finding %d = %q, want it to name %q", i, got[i], w)
				}
			}
		})
	}
}

// TestSkewed: only a server older than the render's target explains what
// a pod lacks; an unknown version is taken as one.
func TestSkewed(t *testing.T) {
	for _, tc := range []struct {
		target, server string
		want           bool
	}{
		{"1.37", "v1.34.4", true},
		{"1.35", "v1.34.0", true},
		{"1.37", "v1.36.3-gke.1200", true},
		{"1.37", "v1.37.1", false},
		{"1.35", "v1.37.1", false},
		{"1.34", "v1.34.4", false},
		{"1.37", "v2.0.0", false},
		{"1.37", "", true},
		{"1.37", "garbage", true},
	} {
		if got := (supervise.PodNeeds{Target: tc.target}).Skewed(tc.server); got != tc.want {
			t.Errorf("target %s, server %q: Skewed = %t, want %t", tc.target, tc.server, got, tc.want)
		}
	}
}

// TestSkewMessage: the refusal names the render's target, the server's
// version and the render that fits it.
func TestSkewMessage(t *testing.T) {
	self := supervise.Ref{Type: "worker", Index: 3}
	dropped := []string{"the volume tfgen-bin (an image volume: Kubernetes 1.35 or later)"}
	for _, tc := range []struct {
		name, target, server string
		want                 []string
	}{
		{"both known", "1.37", "v1.34.4", []string{"replica worker-3 does not train", "rendered for Kubernetes 1.37", "API server (v1.34.4) dropped", "volume tfgen-bin", "--kube-version 1.34"}},
		{"server version unknown", "1.36", "", []string{"rendered for Kubernetes 1.36", "the cluster's API server dropped", "--kube-version MAJOR.MINOR"}},
		{"a distribution's version", "1.37", "v1.34.2-eks-113cf36", []string{"(v1.34.2-eks-113cf36)", "--kube-version 1.34;"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := supervise.SkewMessage(self, tc.target, tc.server, dropped)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("message %q lacks %q", got, w)
				}
			}
			if len(got) > record.MaxMessage {
				t.Errorf("message of %d bytes, more than a pod keeps (%d)", len(got), record.MaxMessage)
			}
		})
	}
}

// TestRefuseSkew: a refused replica is recorded Failed for good, with a
// Warning Event, its restarts kept, and the keeper fails the job with
// its message.
func TestRefuseSkew(t *testing.T) {
	rec := &recorder{}
	cfg := &supervise.Config{Job: &supervise.Job{Name: "j"}, Self: supervise.Ref{Type: "worker", Index: 0}, Logf: t.Logf}
	prev := &record.Replica{State: record.StateIdle, Restarts: 2}
	msg := supervise.SkewMessage(cfg.Self, "1.37", "v1.34.4", []string{"the volume tfgen-bin"})
	res := supervise.RefuseSkew(t.Context(), cfg, rec, prev, msg)
	if diff := cmp.Diff(supervise.Result{State: record.StateFailed, Reason: supervise.ReasonKubernetesVersionSkew, Restarts: 2, Message: msg}, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if len(rec.reports) != 1 {
		t.Fatalf("%d reports, want 1", len(rec.reports))
	}
	r := rec.reports[0]
	if r.State != record.StateFailed || r.Reason != supervise.ReasonKubernetesVersionSkew || r.Message != msg || r.Restarts != 2 {
		t.Errorf("record %+v, want Failed, %s, the message, 2 restarts", r.Replica, supervise.ReasonKubernetesVersionSkew)
	}
	if !slices.Equal(rec.events(), []string{supervise.ReasonKubernetesVersionSkew}) {
		t.Errorf("events %q", rec.events())
	}
	if !supervise.Refused(&r.Replica) || supervise.Refused(prev) || supervise.Refused(nil) {
		t.Error("Refused tells a refusal from other records wrongly")
	}
}
