package e2e

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/record"
)

// restrictedLabels enforce the restricted Pod Security Standard on a
// namespace, and make the API server warn about pod templates that break
// it (StatefulSets are only warned about; their pods are refused).
var restrictedLabels = map[string]string{
	"pod-security.kubernetes.io/enforce":         "restricted",
	"pod-security.kubernetes.io/enforce-version": "latest",
	"pod-security.kubernetes.io/warn":            "restricted",
	"pod-security.kubernetes.io/warn-version":    "latest",
}

// restricted makes a replica's own pod comply with the restricted
// standard, as a user writes it: non-root, RuntimeDefault seccomp, no
// privilege escalation, no capabilities. What tfgen adds must keep it so.
func restricted(r replica) replica {
	r.template = object{"securityContext": object{
		"runAsNonRoot": true, "runAsUser": 1000, "seccompProfile": object{"type": "RuntimeDefault"}}}
	r.ctr = object{"securityContext": object{
		"allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true, "capabilities": object{"drop": []string{"ALL"}}}}
	return r
}

// TestRestrictedPodSecurity: in a namespace that enforces the restricted
// standard, a compliant job is admitted and runs to success in both modes:
// tfgen's init container, supervisor sidecar, volume and env break
// nothing. The same job without its securityContext is refused (the
// check can fail).
func TestRestrictedPodSecurity(t *testing.T) {
	t.Parallel()
	c := getCluster(t)

	t.Run("wrap", func(t *testing.T) {
		t.Parallel()
		spec := jobSpec{name: "secure",
			replicas: []replica{
				restricted(replica{kind: "Chief", n: 1, policy: "ExitCode", args: []string{"--wait-for", "worker-0"}}),
				restricted(replica{kind: "Worker", n: 1, policy: "OnFailure"}),
			}}
		r := c.startJob(t, spec, restrictedLabels)
		if strings.Contains(r.applied.stderr, "Warning") {
			t.Errorf("kubectl apply warns:\n%s", r.applied.stderr)
		}
		if s := r.waitStatus("the job to end", (*record.Status).Ended); !s.IsTrue(record.JobSucceeded) {
			t.Fatalf("the job failed: %s", r.statusJSON())
		}
		if diff := cmp.Diff(map[string]int{"chief-0": 1, "worker-0": 1}, r.runs()); diff != "" {
			t.Errorf("runs per replica (-want +got):\n%s", diff)
		}

		// Without the user's securityContext the same job breaks the
		// standard: the API server says so, naming the user's container.
		plain := jobSpec{name: "plain", replicas: []replica{{kind: "Worker", n: 1, policy: "OnFailure"}}}
		manifests := tfgen(t, plain.manifest(r.ns, r.dir), "render", "-f", "-")
		res := c.mustKubectl(t, manifests, "apply", "--dry-run=server", "-n", r.ns, "-f", "-")
		if !strings.Contains(res.stderr, `would violate PodSecurity "restricted:latest"`) || !strings.Contains(res.stderr, `"tensorflow"`) {
			t.Errorf("a job without securityContext: kubectl apply --dry-run=server warns\n%s\nwant a PodSecurity violation by container \"tensorflow\"", res.stderr)
		}
		if strings.Contains(res.stderr, `"tfgen-install"`) {
			t.Errorf("tfgen's init container breaks the restricted standard:\n%s", res.stderr)
		}
	})

	// Sidecar mode: no command, so the node agent runs the image's
	// entrypoint; worker 0 is killed once (137) and restarted by the
	// container's restart rules, then succeeds, and with it the job.
	t.Run("sidecar", func(t *testing.T) {
		t.Parallel()
		spec := jobSpec{name: "side", exits: []string{"worker-0=137,0", "ps=block"},
			replicas: []replica{
				restricted(replica{kind: "PS", n: 1, policy: "Never", sidecar: true}),
				restricted(replica{kind: "Worker", n: 2, policy: "ExitCode", sidecar: true, args: []string{"--wait-for", "ps-0,worker-1"}}),
			}}
		r := c.startJob(t, spec, restrictedLabels)
		if strings.Contains(r.applied.stderr, "Warning") {
			t.Errorf("kubectl apply warns:\n%s", r.applied.stderr)
		}
		s := r.waitStatus("the job to end", (*record.Status).Ended)
		if !s.IsTrue(record.JobSucceeded) {
			t.Fatalf("the job failed: %s", r.statusJSON())
		}
		if e := r.record("side-worker-0"); s.Restarts != 1 || e.Restarts != 1 {
			t.Errorf("restarts %d, worker-0 %+v: want worker-0 restarted once", s.Restarts, e)
		}
		r.waitReplicas(map[string]int32{"ps": 0, "worker": 2})
		if diff := cmp.Diff(map[string]int{"ps-0": 1, "worker-0": 2, "worker-1": 1}, r.runs()); diff != "" {
			t.Errorf("runs per replica (-want +got):\n%s", diff)
		}
	})
}
