package skew

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
)

// pods are the test job's pods, by replica.
var pods = []string{"chief-0", "worker-0", "worker-1"}

// TestSkewRefusesRenderForNewerKubernetes: a job rendered for a newer
// minor than the cluster's loses fields on the 1.34 API server, which
// accepts it without a word: the supervisor's image volume and its mount
// (the default render, for 1.37), or the containers' restart rules (a
// render for 1.35, with the copy; sidecar mode). No replica trains: the
// supervisor that reads its pod first (wrap mode's sidecar, sidecar
// mode's tfgen-hold) finds what is missing, records its replica Failed
// (KubernetesVersionSkew) with a message naming the render's target and
// the cluster's version, emits an Event of that reason and ends once with
// that message as its termination message, so the pod's status shows it;
// started again, it holds as a failed replica's supervisor does. The job
// fails with the message.
func TestSkewRefusesRenderForNewerKubernetes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		flags   []string
		sidecar bool
		target  string
		lost    []string // words of the message
		refuser string   // the container that refuses
	}{
		{name: "image-volume", target: "1.37", lost: []string{"volume tfgen-bin", "restartPolicy and restartPolicyRules"}, refuser: "tfsupervisor"},
		{name: "restart-rules", flags: []string{"--kube-version", "1.35", "--supervisor-volume", "copy"}, target: "1.35",
			lost: []string{"restartPolicy and restartPolicyRules"}, refuser: "tfsupervisor"},
		{name: "sidecar", flags: []string{"--kube-version", "1.35"}, sidecar: true, target: "1.35",
			lost: []string{"restartPolicy and restartPolicyRules"}, refuser: "tfgen-hold"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// Clean pod policy None: the pods stay to be looked at.
			r := start(t, harness.WorkloadJob{Name: "skew-" + tc.name, Sidecar: tc.sidecar, CleanPodPolicy: job.CleanNone,
				RestartPolicy: job.RestartOnFailure, Flags: tc.flags})
			s := r.WaitStatus("the job to fail", (*record.Status).Ended)
			c := s.Condition(record.JobFailed)
			server := controlplane.Shared(t).KubeVersion()
			if c == nil || c.Status != record.ConditionTrue {
				t.Fatalf("status %s: want Failed", r.StatusJSON())
			}
			for _, w := range append([]string{"rendered for Kubernetes " + tc.target, "(" + server + ") dropped", "--kube-version " + kubeVersion}, tc.lost...) {
				if !strings.Contains(c.Message, w) {
					t.Errorf("the job's Failed condition says %q, want it to hold %q", c.Message, w)
				}
			}
			r.WaitRecords("every replica refused", prefixed(r.Name, pods), func(rec record.Replica) bool {
				return rec.State == record.StateFailed && rec.Reason == supervise.ReasonKubernetesVersionSkew
			})
			// Each refusal's Event is written after its record.
			poll(t, "each pod's "+supervise.ReasonKubernetesVersionSkew+" Event", func(context.Context) (bool, string, error) {
				for _, p := range prefixed(r.Name, pods) {
					if reasons := r.EventReasons(p); !slices.Contains(reasons, supervise.ReasonKubernetesVersionSkew) {
						return false, fmt.Sprintf("pod %s's Events %q", p, reasons), nil
					}
				}
				return true, "", nil
			})
			// The refusing container ended once, its termination message
			// in the pod's status, and runs again, holding.
			poll(t, "each refusing container ended once, then held", func(ctx context.Context) (bool, string, error) {
				// The replicas' pods; the keeper's refuses nothing.
				list, err := r.Pods(ctx)
				if err != nil {
					return false, "", err
				}
				var seen []string
				done := len(list) == len(pods)
				for _, p := range list {
					st := containerStatus(p.Status.InitContainerStatuses, tc.refuser)
					if st == nil || st.LastTerminationState.Terminated == nil || st.State.Running == nil {
						done = false
						seen = append(seen, fmt.Sprintf("%s: %s %+v", p.Name, tc.refuser, st))
						continue
					}
					last := st.LastTerminationState.Terminated
					if last.ExitCode != 1 || !strings.Contains(last.Message, supervise.ReasonKubernetesVersionSkew) || !strings.Contains(last.Message, "rendered for Kubernetes "+tc.target) {
						return false, "", fmt.Errorf("pod %s: %s ended with code %d, message %q: want 1 and the refusal", p.Name, tc.refuser, last.ExitCode, last.Message)
					}
				}
				return done, strings.Join(seen, "; "), nil
			})
			if runs := r.Runs(); len(runs) > 0 {
				t.Errorf("replicas trained: %v, want none", runs)
			}
		})
	}
}

// prefixed names the pods of job's replicas.
func prefixed(job string, replicas []string) []string {
	out := make([]string, len(replicas))
	for i, r := range replicas {
		out[i] = job + "-" + r
	}
	return out
}

func containerStatus(statuses []corev1.ContainerStatus, name string) *corev1.ContainerStatus {
	for i := range statuses {
		if statuses[i].Name == name {
			return &statuses[i]
		}
	}
	return nil
}
