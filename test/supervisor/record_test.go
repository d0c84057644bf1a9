package supervisor

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/pkg/record"
)

// TestRecordManyWriters runs 60 supervisors at once, each a worker whose
// training process fails once, then succeeds: every start, exit and
// restart of each lands in the record, nothing lost.
func TestRecordManyWriters(t *testing.T) {
	const n = 60
	j := newJob(t, fmt.Sprintf("worker:%d:2222", n), map[string]int32{"worker": n})
	dir := t.TempDir()
	script := `f="$DIR/$POD_NAME"; [ -e "$f" ] && exit 0; : > "$f"; exit 1`
	var wg sync.WaitGroup
	errs := make([]error, n)
	outs := make([]*lockedBuffer, n)
	for i := range n {
		pod := j.name + "-worker-" + strconv.Itoa(i)
		j.pod(pod)
		cmd := j.supervisor(pod, j.cp.Kubeconfig(), "run", "--restart-policy", "OnFailure", "--success-policy", "AllWorkers", "--", "sh", "-c", script)
		cmd.Env = append(cmd.Env, "DIR="+dir)
		outs[i] = newLockedBuffer()
		cmd.Stderr = outs[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = cmd.Run()
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("worker %d: %v\n%s", i, err, outs[i])
		}
	}
	s := j.status()
	if s.Restarts != n {
		t.Errorf("job restarts %d, want %d", s.Restarts, n)
	}
	if rs := s.ReplicaStatuses["Worker"]; rs == nil || rs.Succeeded != n {
		t.Errorf("replicaStatuses %+v, want %d succeeded", rs, n)
	}
	if !s.IsTrue(record.JobSucceeded) {
		t.Errorf("conditions %+v, want Succeeded", s.Conditions)
	}
	for i := range n {
		e := s.Lookup("worker", int32(i))
		if e == nil || e.Restarts != 1 || e.State != record.StateSucceeded || e.LastExitCode == nil || *e.LastExitCode != 0 {
			t.Errorf("worker-%d: %+v", i, e)
		}
	}
	if c := s.Condition(record.JobSucceeded); c != nil {
		t.Logf("job succeeded: %s", c.Message)
	}
	// The pods carry the replica's state and the Kubeflow labels.
	for _, i := range []int{0, n - 1} {
		p, err := j.cs.CoreV1().Pods(j.ns).Get(t.Context(), j.name+"-worker-"+strconv.Itoa(i), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		wantRole := map[bool]string{true: "master", false: ""}[i == 0]
		if p.Labels["training.kubeflow.org/replica-index"] != strconv.Itoa(i) || p.Labels["training.kubeflow.org/job-role"] != wantRole ||
			p.Annotations["tfgen.io/state"] != "Succeeded" || p.Annotations["tfgen.io/restarts"] != "1" || p.Annotations["tfgen.io/last-exit-code"] != "0" {
			t.Errorf("pod %s: labels %v, annotations %v", p.Name, p.Labels, p.Annotations)
		}
	}
	os.RemoveAll(filepath.Join(dir))
}
