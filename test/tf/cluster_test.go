package tf

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/localrun"
	"github.com/tfgen/tfgen/test/controlplane"
	"github.com/tfgen/tfgen/test/harness"
	"github.com/tfgen/tfgen/test/nodeagent"
)

// tfImage is the image of the cluster test's training containers: the
// node agent runs python3 from the TensorFlow virtualenv (its PATH), and
// the image's /app/*.py are the examples' scripts.
const tfImage = "tfgen.test/tensorflow:2.21.0"

// agent is the package's node agent, started by the cluster test.
var agent harness.Agent

// startAgent starts the package's node agent on first use.
func startAgent(t *testing.T, cp *controlplane.ControlPlane) *nodeagent.Agent {
	t.Helper()
	return agent.Start(t, func() nodeagent.Config {
		files := map[string]string{}
		for _, f := range []string{"ps.py", "tfjob.py"} {
			files["/app/"+f] = filepath.Join(root, "examples", "tf", f)
		}
		return nodeagent.Config{
			RestConfig: cp.RestConfig(),
			Dir:        filepath.Join(scratch, "node"),
			Images: map[string]nodeagent.Image{
				"ghcr.io/tfgen/tfsupervisor": {Files: map[string]string{"/tfsupervisor": bins.tfsupervisor, "/tfsupervisor-wrap": bins.tfsupervisor}},
				tfImage:                      {Files: files},
			},
			Env:        []string{"PATH=" + filepath.Join(venvs.tf, "bin") + string(os.PathListSeparator) + os.Getenv("PATH")},
			Backoff:    200 * time.Millisecond,
			MaxBackoff: 2 * time.Second,
		}
	})
}

// clusterJob is examples/tf-ps.yaml made to run on the node agent, which
// has no DNS and shares this machine's network among all pods: one worker
// instead of two, each replica type a free port of its own, and the
// replicas' names as hostAliases of 127.0.0.1.
func clusterJob(ns, results string, ports []int) string {
	const name = "tf-ps"
	types := []job.ReplicaType{job.Chief, job.PS, job.Worker}
	var aliases []string
	for _, t := range types {
		typ := strings.ToLower(string(t))
		aliases = append(aliases, fmt.Sprintf("%s-%s-0.%s-%s.%s.svc", name, typ, name, typ, ns))
	}
	b := testjob.New(name).Namespace(ns).CleanPodPolicy(job.CleanRunning)
	for i, t := range types {
		b.Replica(t, 1, testjob.RestartPolicy(job.RestartOnFailure), testjob.Image(tfImage),
			testjob.Command("python3", "/app/ps.py", "--epochs", "5"),
			testjob.Env("TF_CPP_MIN_LOG_LEVEL", "2"), testjob.Env("TF_NUM_INTRAOP_THREADS", "1"), testjob.Env("TF_NUM_INTEROP_THREADS", "2"),
			testjob.Env("RESULTS_DIR", results),
			testjob.Container(func(c *corev1.Container) {
				c.Ports = []corev1.ContainerPort{{Name: "tfjob-port", ContainerPort: int32(ports[i])}}
			}),
			testjob.Pod(func(p *corev1.PodSpec) {
				p.TerminationGracePeriodSeconds = new(int64(5))
				p.HostAliases = []corev1.HostAlias{{IP: "127.0.0.1", Hostnames: aliases}}
			}))
	}
	return b.String()
}

// jobStatus is what the test reads of tfgen status -o json: the state and
// the status's fields as Kubeflow's TFJob status has them.
type jobStatus struct {
	Status struct {
		State      string `json:"state"`
		Conditions []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
		} `json:"conditions"`
		ReplicaStatuses map[string]struct {
			Active    int `json:"active"`
			Succeeded int `json:"succeeded"`
			Failed    int `json:"failed"`
		} `json:"replicaStatuses"`
	} `json:"status"`
}

// TestClusterParameterServer runs the parameter-server job through the
// whole cluster path: tfgen render, kubectl apply to a real control plane,
// the StatefulSets' pods run by the node agent with tfsupervisor wrapping
// real TensorFlow, tfgen status, and the teardown of the parameter server
// and the worker once the chief has succeeded.
func TestClusterParameterServer(t *testing.T) {
	cp := controlplane.Shared(t)
	a := startAgent(t, cp)
	cs := cp.Client()
	nsObj, err := cs.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "tf-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ns := nsObj.Name
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("containers' output:\n%s", a.Logs(ns))
		}
		_ = cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
	})
	ports, err := localrun.FreePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	results := t.TempDir()
	kubeconfig := []string{"--kubeconfig", cp.Kubeconfig()}

	began := time.Now()
	rendered := mustRun(t, []byte(clusterJob(ns, results, ports)), bins.tfgen, "render", "-f", "-")
	mustRun(t, rendered, "kubectl", append(kubeconfig, "apply", "-f", "-")...)

	// --watch exits 0 once the job has succeeded, 1 once it has failed.
	ctx, cancel := context.WithTimeout(t.Context(), jobTimeout)
	defer cancel()
	watch := exec.CommandContext(ctx, bins.tfgen, append(kubeconfig, "status", "tf-ps", "-n", ns, "--watch")...)
	out, err := watch.CombinedOutput()
	t.Logf("job ended after %v", time.Since(began).Round(100*time.Millisecond))
	if err != nil {
		t.Fatalf("tfgen status --watch: %v\n%s", err, out)
	}

	var st jobStatus
	raw := mustRun(t, nil, bins.tfgen, append(kubeconfig, "status", "tf-ps", "-n", ns, "-o", "json")...)
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	succeeded := false
	for _, c := range st.Status.Conditions {
		succeeded = succeeded || (c.Type == "Succeeded" && c.Status == "True")
	}
	chief := st.Status.ReplicaStatuses["Chief"]
	if st.Status.State != "Succeeded" || !succeeded || chief.Succeeded != 1 || chief.Failed != 0 {
		t.Errorf("tfgen status -o json: want state Succeeded, condition Succeeded=True, 1 chief succeeded:\n%s", raw)
	}

	// Real training happened, on the worker, with the variables on the
	// parameter server.
	c := readResults(t, results, "chief-0")["chief-0"]
	wantLearned(t, "chief-0", c.Losses, epochs)
	if c.StepsPerWorker["worker-0"] != epochs*steps {
		t.Errorf("worker-0 ran %d steps, want %d", c.StepsPerWorker["worker-0"], epochs*steps)
	}
	for _, d := range c.VariableDevices {
		if !strings.Contains(d, "/job:ps/") {
			t.Errorf("a variable is on %s, not on the parameter server", d)
		}
	}

	// Teardown: the parameter server's and the worker's StatefulSets at
	// zero, their pods gone.
	err = wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		for _, typ := range []string{"ps", "worker"} {
			s, err := cs.AppsV1().StatefulSets(ns).Get(ctx, "tf-ps-"+typ, metav1.GetOptions{})
			if err != nil || s.Spec.Replicas == nil || *s.Spec.Replicas != 0 {
				return false, nil
			}
			pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "training.kubeflow.org/replica-type=" + typ})
			if err != nil || len(pods.Items) > 0 {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Errorf("the parameter server and the worker were not torn down: %v", err)
	}
}

// mustRun runs a command with stdin and returns its stdout; t fails if it does.
func mustRun(t *testing.T, stdin []byte, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, &errOut)
	}
	return out.Bytes()
}
