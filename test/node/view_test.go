package node

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"strconv"
	"strings"

	"github.com/tfgen/tfgen/pkg/operate"
	"github.com/tfgen/tfgen/pkg/record"
)

// cli runs tfgen as the admin against the cluster, in the job's namespace,
// and returns its stdout and exit code.
func (r *run) cli(args ...string) (string, int) {
	r.T.Helper()
	cmd := exec.CommandContext(r.T.Context(), bins.tfgen.Path, append(args, "--kubeconfig", r.c.cp.Kubeconfig(), "-n", r.Namespace)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return out.String() + errOut.String(), exit.ExitCode()
	case err != nil:
		r.T.Fatalf("tfgen %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), 0
}

// view is what `tfgen status -o json` prints, shaped like a Kubeflow
// TFJob: the record's status with tfgen's state and replicas beside it.
type view struct {
	State     string
	Status    record.Status
	Replicas  []viewReplica
	Admission *operate.Admission
}

type viewReplica struct {
	Name         string `json:"name"`
	State        string `json:"state"`
	Restarts     int32  `json:"restarts"`
	LastExitCode *int32 `json:"lastExitCode"`
	Reason       string `json:"reason"`
}

// view runs `tfgen status -o json`.
func (r *run) view() view {
	r.T.Helper()
	out, code := r.cli("status", r.Name, "-o", "json")
	if code != 0 {
		r.T.Fatalf("tfgen status exited %d:\n%s", code, out)
	}
	var job struct {
		Status json.RawMessage `json:"status"`
	}
	var extra struct {
		State     string             `json:"state"`
		Replicas  []viewReplica      `json:"replicas"`
		Admission *operate.Admission `json:"admission"`
	}
	var v view
	err := json.Unmarshal([]byte(out), &job)
	if err == nil {
		err = json.Unmarshal(job.Status, &v.Status)
	}
	if err == nil {
		err = json.Unmarshal(job.Status, &extra)
	}
	if err != nil {
		r.T.Fatalf("tfgen status -o json: %v\n%s", err, out)
	}
	v.State, v.Replicas, v.Admission = extra.State, extra.Replicas, extra.Admission
	return v
}

// replicaStates is each replica's state as tfgen status reports it
// ("Failed 1" with its last exit code, when it has one).
func (v view) replicaStates() map[string]string {
	out := map[string]string{}
	for _, rep := range v.Replicas {
		s := rep.State
		if rep.LastExitCode != nil && rep.State == string(record.StateFailed) {
			s += " " + strconv.Itoa(int(*rep.LastExitCode))
		}
		out[rep.Name] = s
	}
	return out
}

// active is the sum of the replica types' active counts.
func (v view) active() int32 {
	var n int32
	for _, rs := range v.Status.ReplicaStatuses {
		if rs != nil {
			n += rs.Active
		}
	}
	return n
}
