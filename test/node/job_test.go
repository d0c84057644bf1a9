package node

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/yaml"

	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/test/harness"
)

// replica is one replica type of a test job, run by the test workload.
type replica struct {
	kind     string // the dialect's replica type: Chief, PS, Worker, Scheduler...
	n        int
	policy   string   // restartPolicy
	sidecar  bool     // no command: the image's entrypoint, sidecar mode
	args     []string // further workload flags of this type
	template object   // merged into the pod template's spec (securityContext...)
	ctr      object   // merged into the training container
}

// jobSpec is a test job: a Kubeflow TFJob (or MXJob) whose replicas run
// the workload, every one with the same --exit plan.
type jobSpec struct {
	name      string
	mxnet     bool
	runPolicy object
	replicas  []replica
	exits     []string // --exit REPLICA=CODES
	flags     []string // of tfgen render
	// annotations of the job (tfgen.io/*), if any.
	annotations map[string]string
	// noReports: the pods get no hostPath for the workload's reports (the
	// restricted Pod Security Standard forbids it), so --wait-for fails.
	noReports bool
}

// roles is the layout the workload expects, in --roles form.
func (j jobSpec) roles() string {
	port := 2222
	if j.mxnet {
		port = 9091
	}
	var out []string
	for _, r := range j.replicas {
		out = append(out, fmt.Sprintf("%s:%d:%d", strings.ToLower(r.kind), r.n, port))
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// manifest is the job as a user writes it, for namespace ns, reporting
// into dir.
func (j jobSpec) manifest(ns, dir string) []byte {
	specs := object{}
	for _, r := range j.replicas {
		args := []string{"--job", j.name, "--namespace", ns, "--roles", j.roles()}
		if !j.noReports {
			args = append(args, "--report-dir", "/reports")
		}
		if j.mxnet {
			args = append(args, "--framework", "mxnet")
		}
		for _, e := range j.exits {
			args = append(args, "--exit", e)
		}
		name := "tensorflow"
		if j.mxnet {
			name = "mxnet"
		}
		c := object{"name": name, "image": workloadImage, "imagePullPolicy": "Never", "args": append(args, r.args...)}
		if !r.sidecar {
			c["command"] = []string{workloadPath}
		}
		spec := object{"containers": []any{c}}
		if !j.noReports {
			c["volumeMounts"] = []any{object{"name": "reports", "mountPath": "/reports"}}
			spec["volumes"] = []any{object{"name": "reports", "hostPath": object{"path": dir, "type": "Directory"}}}
		}
		maps.Copy(c, r.ctr)
		maps.Copy(spec, r.template)
		specs[r.kind] = object{"replicas": r.n, "restartPolicy": r.policy, "template": object{"spec": spec}}
	}
	meta := object{"name": j.name}
	if len(j.annotations) > 0 {
		meta["annotations"] = j.annotations
	}
	job := object{"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": meta,
		"spec": object{"runPolicy": j.runPolicy, "tfReplicaSpecs": specs}}
	if j.mxnet {
		job["kind"] = "MXJob"
		job["spec"] = object{"runPolicy": j.runPolicy, "jobMode": "MXTrain", "mxReplicaSpecs": specs}
	}
	b, err := yaml.Marshal(job)
	if err != nil {
		panic(err)
	}
	return b
}

// run is a test job applied to the cluster.
type run struct {
	t         *testing.T
	c         *cluster
	spec      jobSpec
	ns        string
	dir       string         // the workload's reports
	manifests []byte         // tfgen render's output
	applied   harness.Result // what the first kubectl apply said
	began     time.Time
}

// startJob renders the job with tfgen and applies it with kubectl into a
// fresh namespace with labels.
func (c *cluster) startJob(t *testing.T, spec jobSpec, labels map[string]string) *run {
	t.Helper()
	r := &run{t: t, c: c, spec: spec, ns: c.namespace(t, "job", labels), dir: reportDir(t)}
	r.manifests = bins.tfgen.Must(t, spec.manifest(r.ns, r.dir), append([]string{"render", "--supervisor-image", supervisorImage, "-f", "-"}, spec.flags...)...)
	r.began = time.Now()
	r.applied = r.apply()
	return r
}

// apply applies the job's manifests (again).
func (r *run) apply() harness.Result {
	r.t.Helper()
	return bins.kubectl.Must(r.t, r.c.cp.Kubeconfig(), r.manifests, "apply", "-n", r.ns, "-f", "-")
}

// status reads the job's status from its record.
func (r *run) status() *record.Status {
	r.t.Helper()
	cm, err := r.c.cp.Client().CoreV1().ConfigMaps(r.ns).Get(r.t.Context(), r.spec.name, metav1.GetOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	s, err := record.Parse(cm.Data)
	if err != nil {
		r.t.Fatal(err)
	}
	return s
}

// waitStatus watches the record until cond holds.
func (r *run) waitStatus(what string, cond func(*record.Status) bool) *record.Status {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(r.t.Context(), waitTimeout)
	defer cancel()
	cms := r.c.cp.Client().CoreV1().ConfigMaps(r.ns)
	byName := fields.OneTermEqualSelector("metadata.name", r.spec.name).String()
	for ctx.Err() == nil {
		list, err := cms.List(ctx, metav1.ListOptions{FieldSelector: byName})
		if err != nil {
			retryPause(ctx)
			continue
		}
		for _, cm := range list.Items {
			if s, err := record.Parse(cm.Data); err == nil && cond(s) {
				r.t.Logf("%s after %v", what, time.Since(r.began).Round(time.Millisecond))
				return s
			}
		}
		w, err := cms.Watch(ctx, metav1.ListOptions{FieldSelector: byName, ResourceVersion: list.ResourceVersion})
		if err != nil {
			retryPause(ctx)
			continue
		}
		for ev := range w.ResultChan() {
			if cm, ok := ev.Object.(*corev1.ConfigMap); ok && ev.Type != watch.Deleted {
				if s, err := record.Parse(cm.Data); err == nil && cond(s) {
					w.Stop()
					r.t.Logf("%s after %v", what, time.Since(r.began).Round(time.Millisecond))
					return s
				}
			}
		}
		w.Stop() // the watch ended early: list and watch again
	}
	r.t.Fatalf("waiting for %s: gave up after %v; status.json %s", what, waitTimeout, r.statusJSON())
	return nil
}

// retryPause waits a little before a failed API call is tried again.
func retryPause(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-time.After(100 * time.Millisecond):
	}
}

func (r *run) statusJSON() string {
	cm, err := r.c.cp.Client().CoreV1().ConfigMaps(r.ns).Get(context.Background(), r.spec.name, metav1.GetOptions{})
	if err != nil {
		return err.Error()
	}
	return cm.Data[record.DataKey]
}

var getOpts = metav1.GetOptions{}

// object is one Kubernetes object as plain data.
type object = map[string]any

// replicas returns spec.replicas of each of the job's StatefulSets, by
// lowercase replica type.
func (r *run) replicas(ctx context.Context) (map[string]int32, error) {
	list, err := r.c.cp.Client().AppsV1().StatefulSets(r.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := map[string]int32{}
	for _, s := range list.Items {
		out[strings.TrimPrefix(s.Name, r.spec.name+"-")] = *s.Spec.Replicas
	}
	return out, nil
}

// pods returns the names of the job's pods.
func (r *run) pods(ctx context.Context) ([]corev1.Pod, error) {
	list, err := r.c.cp.Client().CoreV1().Pods(r.ns).List(ctx, metav1.ListOptions{LabelSelector: "training.kubeflow.org/job-name=" + r.spec.name})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

func podNames(pods []corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	slices.Sort(out)
	return out
}

// waitReplicas waits until the StatefulSets' replicas are want.
func (r *run) waitReplicas(want map[string]int32) {
	r.t.Helper()
	poll(r.t, fmt.Sprintf("replicas %v", want), func(ctx context.Context) (bool, string, error) {
		got, err := r.replicas(ctx)
		return maps.Equal(got, want), fmt.Sprint(got), err
	})
}

// waitPods waits until the job's pods are exactly names (sorted).
func (r *run) waitPods(names ...string) {
	r.t.Helper()
	slices.Sort(names)
	poll(r.t, fmt.Sprintf("pods %v", names), func(ctx context.Context) (bool, string, error) {
		pods, err := r.pods(ctx)
		got := podNames(pods)
		return slices.Equal(got, names), fmt.Sprint(got), err
	})
}

// record returns the replica's record on pod, as its supervisor wrote it.
func (r *run) record(pod string) record.Replica {
	r.t.Helper()
	p, err := r.c.cp.Client().CoreV1().Pods(r.ns).Get(r.t.Context(), pod, getOpts)
	if err != nil {
		r.t.Fatal(err)
	}
	rec, _ := record.ReplicaFromAnnotations(p.Annotations)
	return rec
}

// eventReasons lists the reasons of the job namespace's events.k8s.io
// Events, sorted.
func (r *run) eventReasons() []string {
	r.t.Helper()
	list, err := r.c.cp.Client().EventsV1().Events(r.ns).List(r.t.Context(), metav1.ListOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		if e.ReportingController == "tfgen.io/tfsupervisor" {
			out = append(out, e.Reason)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// report is one line of the workload's reports (test/workload.Report).
type report struct {
	Pod      string   `json:"pod"`
	Replica  string   `json:"replica"`
	Run      int      `json:"run"`
	OK       bool     `json:"ok"`
	Problems []string `json:"problems"`
	Exit     string   `json:"exit"`
	TFConfig string   `json:"tfConfig"`
	MXConfig string   `json:"mxConfig"`
	// Credentials the training process could read: the token file and
	// the account it is for.
	Credentials []string `json:"credentials"`
}

// reports reads every run of every replica, by replica (worker-1).
func (r *run) reports() map[string][]report {
	r.t.Helper()
	files, _ := filepath.Glob(filepath.Join(r.dir, "*.jsonl"))
	out := map[string][]report{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			r.t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			var rep report
			if err := json.Unmarshal(sc.Bytes(), &rep); err != nil {
				r.t.Fatalf("%s: %v", f, err)
			}
			out[rep.Replica] = append(out[rep.Replica], rep)
		}
	}
	return out
}

// runs returns how many times each replica ran, and fails t for every run
// whose environment was wrong.
func (r *run) runs() map[string]int {
	r.t.Helper()
	out := map[string]int{}
	for replica, reps := range r.reports() {
		out[replica] = len(reps)
		for _, rep := range reps {
			if !rep.OK {
				r.t.Errorf("%s run %d: wrong environment: %s", replica, rep.Run, strings.Join(rep.Problems, "; "))
			}
		}
	}
	return out
}

// reportDir is a directory for the workload's reports that every pod's
// user may write to.
func reportDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp(scratch, "reports-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return dir
}

// waitRecord waits until pod's replica record satisfies cond.
func (r *run) waitRecord(pod string, cond func(record.Replica) bool) {
	r.t.Helper()
	poll(r.t, pod+"'s record", func(ctx context.Context) (bool, string, error) {
		p, err := r.c.cp.Client().CoreV1().Pods(r.ns).Get(ctx, pod, getOpts)
		if err != nil {
			return false, "", err
		}
		rec, _ := record.ReplicaFromAnnotations(p.Annotations)
		return cond(rec), fmt.Sprintf("%+v", rec), nil
	})
}

// waitReport waits until the workload of pod (J-TYPE-INDEX) has reported
// its current run: it is past its checks and in its exit plan.
func (r *run) waitReport(pod string) {
	r.t.Helper()
	replica := strings.TrimPrefix(pod, r.spec.name+"-")
	poll(r.t, replica+"'s report", func(context.Context) (bool, string, error) {
		n := len(r.reports()[replica])
		return n > 0, fmt.Sprintf("%d reports", n), nil
	})
}
