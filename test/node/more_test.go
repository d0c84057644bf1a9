package node

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/record"
)

// restrictedLabels enforce the restricted Pod Security Standard on a
// namespace, and make the API server warn about templates that break it.
var restrictedLabels = map[string]string{
	"pod-security.kubernetes.io/enforce":         "restricted",
	"pod-security.kubernetes.io/enforce-version": "latest",
	"pod-security.kubernetes.io/warn":            "restricted",
	"pod-security.kubernetes.io/warn-version":    "latest",
}

// restricted makes a replica's pod comply with the restricted standard as
// a user writes it: a non-root user other than the image's and the
// supervisor image's, RuntimeDefault seccomp, no privilege escalation, no
// capabilities, a read-only root filesystem.
func restricted(r replica) replica {
	r.edits = append(r.edits, testjob.Pod(func(p *corev1.PodSpec) {
		p.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: new(true), RunAsUser: new(int64(1000)),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
	}), testjob.Container(func(c *corev1.Container) {
		c.SecurityContext = &corev1.SecurityContext{AllowPrivilegeEscalation: new(false), ReadOnlyRootFilesystem: new(true),
			Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}
	}))
	return r
}

// TestRestrictedPodSecurity: in a namespace enforcing the restricted
// standard, compliant jobs run to success under runc, in wrap and sidecar
// mode: the supervisor installed by the init container (user 65532) runs
// as the pod's user 1000, with seccomp and no capabilities.
func TestRestrictedPodSecurity(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	for _, sidecar := range []bool{false, true} {
		name := map[bool]string{false: "wrap", true: "sidecar"}[sidecar]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := c.startJob(t, jobSpec{name: "secure-" + name, noReports: true,
				replicas: []replica{restricted(replica{kind: "Worker", n: 1, policy: "ExitCode", sidecar: sidecar})}}, restrictedLabels)
			if strings.Contains(r.applied.Stderr, "Warning") {
				t.Errorf("kubectl apply warns:\n%s", r.applied.Stderr)
			}
			if s := r.WaitStatus("the job to end", (*record.Status).Ended); !s.IsTrue(record.JobSucceeded) {
				t.Fatalf("the job failed: %s", r.StatusJSON())
			}
			if out, code := r.cli("logs", r.Name); code != 0 || !strings.Contains(out, `"ok":true`) {
				t.Errorf("tfgen logs (exit %d):\n%s\nwant the workload's report of a right environment", code, out)
			}
			// Without the user's securityContext the same job breaks the
			// standard: the API server says so, naming the user's
			// container, never tfgen's.
			plain := jobSpec{name: "plain", noReports: true, replicas: []replica{{kind: "Worker", n: 1, policy: "OnFailure", sidecar: sidecar}}}
			manifests := bins.tfgen.Must(t, plain.manifest(r.Namespace, r.dir), "render", "--supervisor-image", supervisorImage, "-f", "-")
			res := bins.kubectl.Must(t, c.cp.Kubeconfig(), manifests, "apply", "--dry-run=server", "-n", r.Namespace, "-f", "-")
			if !strings.Contains(res.Stderr, `would violate PodSecurity "restricted:latest"`) || !strings.Contains(res.Stderr, `"tensorflow"`) {
				t.Errorf("a job without securityContext: kubectl apply --dry-run=server warns\n%s\nwant a PodSecurity violation by container \"tensorflow\"", res.Stderr)
			}
			if strings.Contains(res.Stderr, `"tfgen-install"`) || strings.Contains(res.Stderr, `"tfsupervisor"`) {
				t.Errorf("tfgen's containers break the restricted standard:\n%s", res.Stderr)
			}
		})
	}
}

// TestSuspendResume: tfgen suspend stops a running job's pods and the job
// is Suspended; tfgen resume brings them back and the worker runs again,
// this time to success.
func TestSuspendResume(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	r := c.startJob(t, jobSpec{name: "pause", exits: []string{"worker-0=block,0"},
		replicas: []replica{{kind: "Worker", n: 1, policy: "ExitCode"}}}, nil)
	r.waitReport("pause-worker-0")
	if out, code := r.cli("suspend", "pause"); code != 0 {
		t.Fatalf("tfgen suspend exited %d:\n%s", code, out)
	}
	r.WaitPods()
	if s := r.WaitStatus("the job suspended", func(s *record.Status) bool { return s.IsTrue(record.JobSuspended) }); s.Ended() {
		t.Fatalf("the job ended when suspended: %s", r.StatusJSON())
	}
	if out, code := r.cli("resume", "pause"); code != 0 {
		t.Fatalf("tfgen resume exited %d:\n%s", code, out)
	}
	s := r.WaitStatus("the job to end", (*record.Status).Ended)
	if !s.IsTrue(record.JobSucceeded) {
		t.Fatalf("the job failed: %s", r.StatusJSON())
	}
	if diff := cmp.Diff(map[string]int{"worker-0": 2}, r.runs()); diff != "" {
		t.Errorf("runs per replica (-want +got):\n%s", diff)
	}
}

// TestSupervisorKilled: worker 0 is killed once (137) and restarted by its
// supervisor; then the supervisor itself is SIGKILLed (as the OOM killer
// does). The kubelet restarts the container; the new supervisor takes the
// restart count from the record instead of starting again from zero, and
// the next run succeeds.
func TestSupervisorKilled(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	r := c.startJob(t, jobSpec{name: "kill", runPolicy: job.RunPolicy{BackoffLimit: new(int32(5))}, exits: []string{"worker-0=137,block,0"},
		replicas: []replica{{kind: "Worker", n: 1, policy: "ExitCode"}}}, nil)
	r.WaitRecord("kill-worker-0", func(rec record.Replica) bool { return rec.Restarts == 1 && rec.State == record.StateRunning })
	poll(t, "worker-0's second run", func(context.Context) (bool, string, error) {
		n := len(r.reports()["worker-0"])
		return n == 2, strconv.Itoa(n) + " runs", nil
	})
	pids := supervisorPIDs("kill-worker-0")
	if len(pids) != 1 {
		t.Fatalf("tfsupervisor processes of pod kill-worker-0: %v, want one", pids)
	}
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	s := r.WaitStatus("the job to end", (*record.Status).Ended)
	if !s.IsTrue(record.JobSucceeded) {
		t.Fatalf("the job failed: %s", r.StatusJSON())
	}
	if rec := r.Record("kill-worker-0"); s.Restarts < 1 || rec.Restarts < 1 {
		t.Errorf("restarts %d, worker-0 %+v: the restart before the kill is lost", s.Restarts, rec)
	}
	if diff := cmp.Diff(map[string]int{"worker-0": 3}, r.runs()); diff != "" {
		t.Errorf("runs per replica (-want +got):\n%s", diff)
	}
}

// supervisorPIDs finds the tfsupervisor processes of pod on this machine,
// by their command line and the POD_NAME in their environment.
func supervisorPIDs(pod string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err1 := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		environ, err2 := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err1 != nil || err2 != nil {
			continue
		}
		args := bytes.Split(cmdline, []byte{0})
		if base := filepath.Base(string(args[0])); len(args) < 2 || base != "tfsupervisor" && base != "tfsupervisor-wrap" || string(args[1]) != "run" {
			continue
		}
		for _, kv := range bytes.Split(environ, []byte{0}) {
			if string(kv) == "POD_NAME="+pod {
				out = append(out, pid)
			}
		}
	}
	return out
}
