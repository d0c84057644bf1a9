package node

import (
	"strings"
	"testing"

	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/record"
)

// TestLogsSurviveTeardown: worker-1 fails for good, which fails the job,
// and cleanPodPolicy All removes every pod. `tfgen logs` still prints the
// end of the output of the replica that failed and of those the teardown
// stopped, from what the job's keeper kept (issue 16, item 3;
// kubeflow/training-operator#1059). In wrap mode tfsupervisor keeps the
// end of its training process's output; in sidecar mode the kubelet's
// FallbackToLogsOnError termination message gives it for a failed
// container (a replica the teardown stops, whose container's end the
// sidecar never sees, keeps none).
func TestLogsSurviveTeardown(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		sidecar bool // the workers
		kept    map[string]string
	}{
		{name: "wrap", kept: map[string]string{
			"worker-1": `"replica":"worker-1"`, "ps-0": "workload: got terminated", "worker-0": "workload: got terminated"}},
		{name: "sidecar", sidecar: true, kept: map[string]string{
			"worker-1": `"replica":"worker-1"`, "ps-0": "workload: got terminated"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := getCluster(t)
			name := "logs-" + tc.name
			r := c.startJob(t, jobSpec{name: name, runPolicy: job.RunPolicy{CleanPodPolicy: job.CleanAll},
				exits: []string{"ps=block", "worker-1=1", "worker=block"},
				replicas: []replica{
					{kind: "PS", n: 1, policy: "OnFailure"},
					{kind: "Worker", n: 2, policy: "ExitCode", sidecar: tc.sidecar, args: []string{"--wait-for", "ps-0,worker-0,worker-1"}},
				}}, nil)
			s := r.WaitStatus("the job to end", (*record.Status).Ended)
			if !s.IsTrue(record.JobFailed) {
				t.Fatalf("status %s: want Failed", r.StatusJSON())
			}
			r.WaitPods()
			for replica, want := range tc.kept {
				out, code := r.cli("logs", name, "--replica", replica)
				if code != 0 || !strings.Contains(out, want) {
					t.Errorf("tfgen logs --replica %s (exit %d):\n%s\nwant the end of its output, with %q", replica, code, out, want)
				}
			}
			out, code := r.cli("logs", name, "--all")
			for replica, want := range tc.kept {
				if code != 0 || !strings.Contains(out, "["+replica+"] ") || !strings.Contains(out, want) {
					t.Errorf("tfgen logs --all (exit %d):\n%s\nwant %s's kept output", code, out, replica)
				}
			}
			for k, v := range r.Logs() {
				if len(v) > record.MaxLogTail {
					t.Errorf("kept %d bytes of %s, more than %d", len(v), k, record.MaxLogTail)
				}
			}
		})
	}
}
