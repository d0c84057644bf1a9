//go:build unix

package localrun

import (
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// envOf returns the replica's environment as a map.
func envOf(r Replica) map[string]string {
	m := map[string]string{}
	for _, kv := range r.Command.Env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

func TestPlanTFConfig(t *testing.T) {
	j := testjob.New("demo").Replica(job.Chief, 1, testjob.Shell("exit 0")).Replica(job.PS, 1, testjob.Shell("exit 0")).
		Replica(job.Worker, 1, testjob.RestartPolicy(job.RestartOnFailure), testjob.Shell("train --steps=$(STEPS) --pod=$(POD_NAME) $$(KEPT) $(UNKNOWN)"),
			testjob.Env("STEPS", "100"),
			testjob.Env("TF_CONFIG", "overridden by the cluster's"),
			testjob.Env("LOG", "/logs/$(POD_NAMESPACE)/$(POD_NAME)"),
			fieldEnv("NODE", "spec.nodeName")).
		Defaulted()
	p, err := NewPlan(j, PlanOptions{Replicas: map[string]int32{"Worker": 2}, Ports: ports, Environ: []string{"PATH=/bin:/usr/bin", "STEPS=1"}})
	if err != nil {
		t.Fatal(err)
	}
	if n := *j.TFReplicaSpecs[job.Worker].Replicas; n != 1 {
		t.Errorf("the job changed: %d workers", n)
	}
	var names, addrs []string
	for _, r := range p.Replicas {
		names, addrs = append(names, r.Ref.String()), append(addrs, r.Address)
	}
	if diff := cmp.Diff([]string{"chief-0", "ps-0", "worker-0", "worker-1"}, names); diff != "" {
		t.Errorf("replicas (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"localhost:40000", "localhost:40001", "localhost:40002", "localhost:40003"}, addrs); diff != "" {
		t.Errorf("addresses (-want +got):\n%s", diff)
	}
	w1 := p.Replicas[3]
	env := envOf(w1)
	var tf struct {
		Cluster map[string][]string
		Task    struct {
			Type  string
			Index int
		}
		Environment string
	}
	if err := json.Unmarshal([]byte(env["TF_CONFIG"]), &tf); err != nil {
		t.Fatalf("TF_CONFIG %q: %v", env["TF_CONFIG"], err)
	}
	wantCluster := map[string][]string{"chief": {"localhost:40000"}, "ps": {"localhost:40001"}, "worker": {"localhost:40002", "localhost:40003"}}
	if diff := cmp.Diff(wantCluster, tf.Cluster); diff != "" {
		t.Errorf("TF_CONFIG cluster (-want +got):\n%s", diff)
	}
	if tf.Task.Type != "worker" || tf.Task.Index != 1 || tf.Environment != "cloud" {
		t.Errorf("TF_CONFIG task %+v, environment %q", tf.Task, tf.Environment)
	}
	for k, want := range map[string]string{"POD_NAME": "demo-worker-1", "POD_NAMESPACE": "default", "STEPS": "100",
		"LOG": "/logs/default/demo-worker-1", "PATH": "/bin:/usr/bin"} {
		if env[k] != want {
			t.Errorf("%s=%q, want %q", k, env[k], want)
		}
	}
	if _, ok := env["NODE"]; ok {
		t.Errorf("NODE (valueFrom) is set: %q", env["NODE"])
	}
	wantArgs := []string{"sh", "-c", "train --steps=100 --pod=demo-worker-1 $(KEPT) $(UNKNOWN)"}
	if diff := cmp.Diff(wantArgs, w1.Command.Args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	wantWarn := []string{"replica type Worker: skipped env NODE (valueFrom): tfgen run resolves no cluster references"}
	if diff := cmp.Diff(wantWarn, p.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	c := w1.Config
	if c.Pod != "demo-worker-1" || c.Self != (supervise.Ref{Type: "worker", Index: 1}) || c.Policy.Restart != supervise.OnFailure ||
		c.GracePeriod != 30*time.Second || c.Job.CleanPodPolicy != supervise.CleanRunning || c.Policy.Backoff != supervise.DefaultBackoff {
		t.Errorf("worker-1 config: %+v", c)
	}
}

func TestPlanMXNet(t *testing.T) {
	j := testjob.NewMX("mx").Replica(job.Scheduler, 1, testjob.Shell("true")).Replica(job.Server, 1, testjob.Shell("true")).
		Replica(job.Worker, 2, testjob.Shell("true")).Defaulted()
	p, err := NewPlan(j, PlanOptions{Ports: ports, Environ: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	env := envOf(p.Replicas[3]) // worker-1
	// DMLC_NODE_HOST and DMLC_INTERFACE: ps-lite would announce another
	// interface's address (or, with loopback only, abort).
	for k, want := range map[string]string{"DMLC_PS_ROOT_URI": "localhost", "DMLC_PS_ROOT_PORT": "40000", "DMLC_ROLE": "worker",
		"DMLC_WORKER_ID": "1", "DMLC_NUM_WORKER": "2", "DMLC_NUM_SERVER": "1", "DMLC_NODE_HOST": "127.0.0.1", "DMLC_INTERFACE": loopbackInterface()} {
		if env[k] != want {
			t.Errorf("%s=%q, want %q", k, env[k], want)
		}
	}
	if !strings.Contains(env["MX_CONFIG"], `"worker":[{"url":"localhost","port":40002},{"url":"localhost","port":40003}]`) {
		t.Errorf("MX_CONFIG %s", env["MX_CONFIG"])
	}
}

func TestLoopbackInterface(t *testing.T) {
	name := loopbackInterface()
	i, err := net.InterfaceByName(name)
	if err != nil {
		t.Fatalf("loopback interface %q: %v", name, err)
	}
	if i.Flags&net.FlagLoopback == 0 {
		t.Errorf("interface %s is not loopback: %v", name, i.Flags)
	}
}

func TestPlanExcludeEvaluator(t *testing.T) {
	j := testjob.New("demo").Replica(job.Chief, 1, testjob.Shell("true")).Replica(job.Worker, 1, testjob.Shell("true")).
		Replica(job.Evaluator, 1, testjob.Shell("true")).Defaulted()
	for _, exclude := range []bool{false, true} {
		p, err := NewPlan(j, PlanOptions{Ports: ports, Environ: []string{}, ExcludeEvaluator: exclude})
		if err != nil {
			t.Fatal(err)
		}
		var refs []string
		for _, r := range p.Replicas {
			refs = append(refs, r.Ref.String())
			env := envOf(r)
			var tf struct {
				Cluster map[string][]string
				Task    struct{ Type string }
			}
			if err := json.Unmarshal([]byte(env["TF_CONFIG"]), &tf); err != nil {
				t.Fatalf("%s: TF_CONFIG %q: %v", r.Ref, env["TF_CONFIG"], err)
			}
			want := map[string][]string{"chief": {"localhost:40000"}, "evaluator": {"localhost:40001"}, "worker": {"localhost:40002"}}
			if exclude {
				delete(want, "evaluator")
			}
			if diff := cmp.Diff(want, tf.Cluster); diff != "" {
				t.Errorf("exclude %v: %s: TF_CONFIG cluster (-want +got):\n%s", exclude, r.Ref, diff)
			}
			if tf.Task.Type != r.Ref.Type {
				t.Errorf("exclude %v: %s: task type %q", exclude, r.Ref, tf.Task.Type)
			}
			if _, ok := env["DMLC_NODE_HOST"]; ok {
				t.Errorf("%s: DMLC_NODE_HOST in a TensorFlow job", r.Ref)
			}
		}
		// The evaluator runs either way.
		if diff := cmp.Diff([]string{"chief-0", "evaluator-0", "worker-0"}, refs); diff != "" {
			t.Errorf("exclude %v: replicas (-want +got):\n%s", exclude, diff)
		}
	}
}

func TestPlanPolicies(t *testing.T) {
	j := testjob.New("demo").Replica(job.Worker, 2, testjob.Shell("true")).
		Replica(job.PS, 1, testjob.RestartPolicy(job.RestartExitCode), testjob.Shell("true"), func(s *job.ReplicaSpec) {
			s.RetryableExitCodes, s.MaxRestarts = []int32{137}, ptr(int32(3))
			s.Template.Spec.TerminationGracePeriodSeconds = ptr(int64(5))
		}).Defaulted()
	j.RunPolicy = job.RunPolicy{CleanPodPolicy: job.CleanAll, BackoffLimit: ptr(int32(4)), ActiveDeadlineSeconds: ptr(int64(60))}
	j.SuccessPolicy = job.SuccessAllWorkers
	j.SuccessReplica = &job.ReplicaRef{Type: job.Worker, Index: 1}
	for _, tc := range []struct {
		name  string
		o     PlanOptions
		grace time.Duration
	}{
		{"template grace period", PlanOptions{}, 5 * time.Second},
		{"--grace-period", PlanOptions{GracePeriod: time.Second}, time.Second},
	} {
		tc.o.Ports = ports
		p, err := NewPlan(j, tc.o)
		if err != nil {
			t.Fatal(err)
		}
		c := p.Replicas[0].Config // ps-0
		want := supervise.Policy{Restart: supervise.ExitCode, RetryableExitCodes: []int32{137}, MaxRestarts: ptr(int32(3)), Backoff: supervise.DefaultBackoff}
		if diff := cmp.Diff(want, c.Policy); diff != "" {
			t.Errorf("%s: policy (-want +got):\n%s", tc.name, diff)
		}
		if j := c.Job; c.GracePeriod != tc.grace || *j.BackoffLimit != 4 || j.ActiveDeadline != time.Minute || j.CleanPodPolicy != supervise.CleanAll ||
			j.SuccessPolicy != supervise.AllWorkers || *j.SuccessReplica != (supervise.Ref{Type: "worker", Index: 1}) {
			t.Errorf("%s: config %+v", tc.name, c)
		}
	}
}

func TestPlanErrors(t *testing.T) {
	demo := func() *testjob.Builder { return testjob.New("demo") }
	runs := testjob.Shell("true")
	for _, tc := range []struct {
		name string
		job  *testjob.Builder
		o    PlanOptions
		want string
	}{
		{"sidecar mode", demo().Replica(job.Worker, 1),
			PlanOptions{}, `replica type Worker: container "tensorflow" has no command, so it would run its image's entrypoint, which tfgen run cannot know; ` +
				"give the container a command, or map its image with --image-entrypoints"},
		{"command not installed", demo().Replica(job.Chief, 1, testjob.Command("tfgen-no-such-command", "train.py"), testjob.Image("tensorflow/tensorflow:2.16.1")).
			Replica(job.Worker, 1, runs),
			PlanOptions{}, `replica type Chief: command "tfgen-no-such-command": executable file not found in $PATH; ` +
				"tfgen run runs the container's command on this machine, not in its image tensorflow/tensorflow:2.16.1"},
		{"unknown type", demo().Replica(job.Worker, 1, runs),
			PlanOptions{Replicas: map[string]int32{"ps": 2}}, "--replicas ps=2: job demo has no replica type ps (it has worker)"},
		{"negative count", demo().Replica(job.Worker, 1, runs),
			PlanOptions{Replicas: map[string]int32{"worker": -1}}, "--replicas worker=-1: the count must be 0 or more"},
		{"two chiefs", demo().Replica(job.Chief, 1, runs),
			PlanOptions{Replicas: map[string]int32{"chief": 2}}, "with --replicas, spec.tfReplicaSpecs[Chief].replicas: Invalid value: 2: a job has at most one chief"},
		{"nothing to run", demo().Replica(job.Worker, 1, runs),
			PlanOptions{Replicas: map[string]int32{"worker": 0}}, "job demo has no replicas to run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Ports = ports
			_, err := NewPlan(tc.job.Defaulted(), tc.o)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error:\n%v\nwant:\n%s", err, tc.want)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	vars := map[string]string{"A": "x", "EMPTY": ""}
	lookup := func(n string) (string, bool) { v, ok := vars[n]; return v, ok }
	for in, want := range map[string]string{
		"plain": "plain", "$(A)": "x", "a$(A)b$(A)": "axbx", "$(EMPTY)-": "-", "$(B)": "$(B)",
		"$$(A)": "$(A)", "$$": "$", "$": "$", "$x": "$x", "$(A": "$(A", "cost $5": "cost $5",
	} {
		if got := expand(in, lookup); got != want {
			t.Errorf("expand(%q) = %q, want %q", in, got, want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestPlanDownwardAPI: env from the downward API that a local run knows
// (the pod's name, namespace, labels and annotations) is given as the
// kubelet gives it, and $(VAR) of it expands in env values and args; the
// rest is skipped with a warning.
func TestPlanDownwardAPI(t *testing.T) {
	j := testjob.New("demo").Namespace("team-a").Replica(job.Worker, 2, testjob.Shell(`train --pod=$(POD_NAME) --ns=$(POD_NAMESPACE) --index=$(INDEX)`),
		fieldEnv("POD_NAME", "metadata.name"),
		fieldEnv("POD_NAMESPACE", "metadata.namespace"),
		fieldEnv("INDEX", "metadata.labels['apps.kubernetes.io/pod-index']"),
		fieldEnv("TEAM", `metadata.labels["team"]`),
		fieldEnv("OWNER", "metadata.annotations['owner']"),
		fieldEnv("MISSING", "metadata.labels['none']"),
		fieldEnv("APP", "metadata.labels['app.kubernetes.io/name']"),
		fieldEnv("POD", "metadata.labels['statefulset.kubernetes.io/pod-name']"),
		testjob.Env("LOG", "/logs/$(POD_NAMESPACE)/$(POD_NAME)/$(TEAM)"),
		fieldEnv("UID", "metadata.uid"),
		fieldEnv("NODE", "spec.nodeName"),
		func(s *job.ReplicaSpec) {
			s.Template.Labels = map[string]string{"team": "vision", "app.kubernetes.io/name": "overridden"}
			s.Template.Annotations = map[string]string{"owner": "ada"}
		}).Defaulted()
	p, err := NewPlan(j, PlanOptions{Ports: ports, Environ: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	w1 := p.Replicas[1]
	env := envOf(w1)
	want := map[string]string{"TFGEN_POD_NAME": "demo-worker-1", "TFGEN_POD_NAMESPACE": "team-a", "POD_NAME": "demo-worker-1", "POD_NAMESPACE": "team-a", "INDEX": "1", "TEAM": "vision", "OWNER": "ada",
		"MISSING": "", "APP": "tfjob", "POD": "demo-worker-1", "LOG": "/logs/team-a/demo-worker-1/vision"}
	for k, v := range want {
		if got, ok := env[k]; !ok || got != v {
			t.Errorf("%s=%q (set %v), want %q", k, got, ok, v)
		}
	}
	for _, k := range []string{"UID", "NODE"} {
		if v, ok := env[k]; ok {
			t.Errorf("%s is set (%q): a local run cannot know it", k, v)
		}
	}
	if diff := cmp.Diff([]string{"sh", "-c", "train --pod=demo-worker-1 --ns=team-a --index=1"}, w1.Command.Args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	wantWarn := []string{"replica type Worker: skipped env UID (valueFrom), env NODE (valueFrom): tfgen run resolves no cluster references"}
	if diff := cmp.Diff(wantWarn, p.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestPlanWarnings: what a local run cannot give a replica as its pod
// would is said once per replica type.
func TestPlanWarnings(t *testing.T) {
	j := testjob.New("demo").
		Replica(job.Worker, 2, testjob.Shell("train"), testjob.Container(func(c *corev1.Container) {
			c.WorkingDir = "/app"
			c.VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/data"}, {Name: "logs", MountPath: "/logs", SubPath: "w"}}
		})).
		Replica(job.PS, 1, testjob.Shell("serve"), testjob.Pod(func(p *corev1.PodSpec) {
			p.Containers = append(p.Containers, corev1.Container{Name: "proxy", Image: "envoy",
				VolumeMounts: []corev1.VolumeMount{{Name: "cfg", MountPath: "/etc/envoy"}}}) // not run here
		})).Defaulted()
	p, err := NewPlan(j, PlanOptions{Ports: ports, Environ: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	// Nothing of PS: its proxy, which mounts a volume, does not run here.
	want := []string{
		"replica type Worker: workingDir /app is a path in the image; the processes run in the current directory",
		"replica type Worker: volumeMounts /data, /logs are not provided; the processes see this machine's files at those paths",
	}
	if diff := cmp.Diff(want, p.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}
