package supervise

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tfgen/tfgen/pkg/kube"
	"github.com/tfgen/tfgen/pkg/record"
)

// A render names its target Kubernetes minor, and an API server of an
// older minor drops, on create and without an error, the fields of a
// feature that is off on it (DESIGN section 8). Two of them carry
// tfsupervisor's contract with its pod, so the supervisor that reads its
// pod first (wrap mode's sidecar, sidecar mode's tfgen-hold) checks them
// before anything trains:
//   - the volume tfgen-bin, where the training container finds
//     tfsupervisor: an image volume (Kubernetes 1.35 or later) is dropped
//     with its mounts, and the training container cannot start;
//   - the containers' restart rules (restartPolicy, restartPolicyRules:
//     1.35 or later), without which the kubelet restarts, under the pod's
//     Always, a training container that must not run again and a
//     supervisor that ended because its pod was given back.
//
// A replica whose pod lacks either is refused: recorded Failed for good
// (ReasonKubernetesVersionSkew), with a message naming the render's
// target and the server's version, so that the job fails with it and
// nothing trains.

// SupervisorVolume is the volume of every rendered pod that holds
// tfsupervisor for the training container (templates/_pod.tpl).
const SupervisorVolume = "tfgen-bin"

// ReasonKubernetesVersionSkew: the replica's pod lacks what its render
// needs, dropped by an API server older than the render's target.
const ReasonKubernetesVersionSkew = "KubernetesVersionSkew"

// PodNeeds is what a replica's pod must carry as its render wrote it.
type PodNeeds struct {
	// Target is the Kubernetes minor the pod was rendered for (MAJOR.MINOR,
	// tfsupervisor --kube-version); "" for a render that did not say,
	// whose pod is not checked.
	Target string
	// RestartRules: the render gave the pod's containers restart rules
	// (sidecar mode; wrap mode with --complete).
	RestartRules bool
}

// Dropped says, in words for a message, what pod p lacks of what its
// render wrote; nothing when it is whole or its render named no target.
func (n PodNeeds) Dropped(p *kube.Pod) []string {
	if n.Target == "" {
		return nil
	}
	var out []string
	if !slices.ContainsFunc(p.Spec.Volumes, func(v kube.Volume) bool { return v.Name == SupervisorVolume }) {
		out = append(out, "the volume "+SupervisorVolume+" (an image volume: Kubernetes 1.35 or later)")
	}
	if n.RestartRules && !slices.ContainsFunc(p.Spec.Containers, func(c kube.Container) bool { return c.RestartPolicy != "" }) {
		out = append(out, "the containers' restartPolicy and restartPolicyRules (container restart rules: Kubernetes 1.35 or later)")
	}
	return out
}

// Skewed reports whether an API server of version server (its
// gitVersion; "" when unknown) is older than the render's target, so that
// what the pod lacks was dropped by it; a pod that lacks something on a
// server as new as its target was not made by this render as it is.
func (n PodNeeds) Skewed(server string) bool {
	sm, ok := parseMinor(minorOf(server))
	tm, tok := parseMinor(n.Target)
	return !ok || !tok || sm[0] < tm[0] || sm[0] == tm[0] && sm[1] < tm[1]
}

// parseMinor reads MAJOR.MINOR.
func parseMinor(v string) ([2]int, bool) {
	major, minor, ok := strings.Cut(v, ".")
	a, err1 := strconv.Atoi(major)
	b, err2 := strconv.Atoi(minor)
	return [2]int{a, b}, ok && err1 == nil && err2 == nil
}

// SkewMessage says why replica self does not train: its pod, rendered
// for Kubernetes target, lacks dropped on an API server of version server
// ("" when unknown).
func SkewMessage(self Ref, target, server string, dropped []string) string {
	rendered := "Kubernetes " + target
	by := "the cluster's API server"
	if server != "" {
		by += " (" + server + ")"
	}
	fix := "render the job again for this cluster's Kubernetes version (tfgen render --kube-version MAJOR.MINOR; under Helm, leave tfgen.kubeVersion unset)"
	if m := minorOf(server); m != "" {
		fix = "render the job again for this cluster (tfgen render --kube-version " + m + "; under Helm, leave tfgen.kubeVersion unset)"
	}
	return fmt.Sprintf("replica %s does not train: its pod was rendered for %s, but %s dropped from it %s; %s",
		self, rendered, by, strings.Join(dropped, " and "), fix)
}

// minorOf is MAJOR.MINOR of a server version (v1.34.4 -> 1.34), "" when
// it is not one.
func minorOf(v string) string {
	parts := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
	if len(parts) < 2 || parts[0] == "" || strings.Trim(parts[0]+parts[1], "0123456789") != "" || parts[1] == "" {
		return ""
	}
	return parts[0] + "." + parts[1]
}

// Refused reports whether rec, a replica's record, says it was refused
// for a version skew already: its container started again after saying
// so, and holds as a failed replica's does.
func Refused(rec *record.Replica) bool {
	return rec != nil && rec.State == record.StateFailed && rec.Reason == ReasonKubernetesVersionSkew
}

// RefuseSkew records replica cfg.Self failed for good with message (from
// SkewMessage), prev being the record its pod carries, with a Warning
// Event, and waits for the delivery. It returns the result the refusing
// supervisor ends with.
func RefuseSkew(ctx context.Context, cfg *Config, rep Reporter, prev *record.Replica, message string) Result {
	var rec record.Replica
	if prev != nil {
		rec = *prev
	}
	cfg.Logf("%s", message)
	rec.State, rec.Reason, rec.Message = record.StateFailed, ReasonKubernetesVersionSkew, message
	rep.Report(Report{Replica: rec, Events: []Event{{Type: "Warning", Reason: ReasonKubernetesVersionSkew, Action: "Refuse", Note: message}}})
	flush(ctx, cfg.Logf, rep)
	return Result{State: rec.State, Reason: rec.Reason, Restarts: rec.Restarts, Message: message}
}
