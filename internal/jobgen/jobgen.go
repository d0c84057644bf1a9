package jobgen

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"sigs.k8s.io/yaml"
)

// Job is one generated job.
type Job struct {
	// YAML is the job's document.
	YAML []byte
	// Flags are the flags to render it with (--gang-scheduler...).
	Flags []string
}

// Generator makes jobs from a seed: the same seed, the same jobs.
type Generator struct {
	r *rand.Rand
	n int
	// scale is how far the job being made strays from the usual: it
	// scales the odds of every unusual value (1 for the most, in a tenth
	// of the jobs; far less in most of them).
	scale float64
	// kueue: the job is rendered for Kueue, which needs a queue.
	kueue bool
}

// New returns a generator seeded with seed.
func New(seed uint64) *Generator {
	return &Generator{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Next returns the next job.
func (g *Generator) Next() Job {
	g.n++
	g.scale = []float64{0.02, 0.2, 1}[g.pick(6, 3, 1)]
	flags := g.flags()
	g.kueue = slices.Contains(flags, "kueue")
	var doc map[string]any
	switch g.pick(8, 1, 1) {
	case 0:
		doc = g.tfJob()
	case 1:
		doc = g.mxJob()
	default:
		doc = g.v1alpha1Job()
	}
	b, err := yaml.Marshal(doc)
	if err != nil {
		panic(fmt.Sprintf("jobgen: %v", err))
	}
	return Job{YAML: b, Flags: flags}
}

// chance reports true with probability p.
func (g *Generator) chance(p float64) bool { return g.r.Float64() < p }

// pick returns an index into weights, each drawn in proportion to its
// weight.
func (g *Generator) pick(weights ...int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	n := g.r.IntN(total)
	for i, w := range weights {
		if n < w {
			return i
		}
		n -= w
	}
	return len(weights) - 1
}

// one returns one of the values: the first (the usual one) with
// probability common in the most unusual jobs, and more often in the
// others; else one of the others, evenly.
func one[T any](g *Generator, common float64, values ...T) T {
	if len(values) == 1 || g.chance(1-(1-common)*g.scale) {
		return values[0]
	}
	return values[1+g.r.IntN(len(values)-1)]
}

// bad returns the weight w of a choice the API server refuses, scaled as
// one scales unusual values: w in the most unusual jobs, else mostly 0.
func (g *Generator) bad(w int) int {
	if g.chance(g.scale) {
		return w
	}
	return 0
}

// any returns one of the values, evenly.
func anyOf[T any](g *Generator, values ...T) T { return values[g.r.IntN(len(values))] }

func (g *Generator) flags() []string {
	var f []string
	if g.chance(0.15) {
		f = append(f, "--gang-scheduler", anyOf(g, "volcano", "scheduler-plugins", "kueue", "kubernetes"))
	}
	if g.chance(0.1) {
		f = append(f, "--cloud", anyOf(g, "gke", "azure"))
	}
	if g.chance(0.1) {
		f = append(f, "--cluster-domain", "cluster.local")
	}
	if g.chance(0.05) {
		f = append(f, "--exclude-evaluator")
	}
	if g.chance(0.15) {
		f = append(f, "--locality", anyOf(g, "node", "zone", "none"))
	}
	if g.chance(0.1) {
		f = append(f, "--supervisor-volume", "image")
	}
	return f
}

// name is the job's name: mostly short, some of the longest that fit.
func (g *Generator) name() string {
	return one(g, 0.8, fmt.Sprintf("job-%d", g.n), fmt.Sprintf("j%d", g.n), fmt.Sprintf("a%041d", g.n))
}

func (g *Generator) meta() map[string]any {
	m := map[string]any{"name": g.name()}
	if g.chance(0.1) {
		m["namespace"] = anyOf(g, "team-a", "ml")
	}
	if g.chance(0.3) {
		m["labels"] = g.labels()
	}
	if g.chance(0.3) {
		m["annotations"] = g.annotations()
	}
	return m
}

// tfJob is a Kubeflow v1 TFJob.
func (g *Generator) tfJob() map[string]any {
	specs := map[string]any{}
	types := []string{"Worker"}
	switch g.pick(3, 3, 2, 1) {
	case 1:
		types = []string{"Chief", "Worker", "PS"}
	case 2:
		types = []string{"Worker", "PS"}
	case 3:
		types = []string{"Chief", "Worker", "Evaluator"}
	}
	for _, t := range types {
		n := 1
		if t == "Worker" || t == "PS" {
			n = one(g, 0.5, 2, 1, 3, 0)
		}
		specs[t] = g.replicaSpec(n, "tensorflow")
	}
	spec := map[string]any{"tfReplicaSpecs": specs, "runPolicy": g.runPolicy()}
	if g.chance(0.1) {
		spec["successPolicy"] = "AllWorkers"
	}
	if g.chance(0.1) {
		spec["enableDynamicWorker"] = true
	}
	return map[string]any{"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": g.meta(), "spec": spec}
}

// mxJob is a Kubeflow v1 MXJob in dist mode.
func (g *Generator) mxJob() map[string]any {
	specs := map[string]any{
		"Scheduler": g.replicaSpec(1, "mxnet"),
		"Server":    g.replicaSpec(one(g, 0.7, 1, 2), "mxnet"),
		"Worker":    g.replicaSpec(one(g, 0.7, 2, 1, 3), "mxnet"),
	}
	spec := map[string]any{"jobMode": "MXTrain", "mxReplicaSpecs": specs, "runPolicy": g.runPolicy()}
	return map[string]any{"apiVersion": "kubeflow.org/v1", "kind": "MXJob", "metadata": g.meta(), "spec": spec}
}

// v1alpha1Job is a TfJob of the first operator, with TensorBoard.
func (g *Generator) v1alpha1Job() map[string]any {
	var specs []any
	for _, t := range []string{"MASTER", "WORKER", "PS"} {
		s := g.replicaSpec(one(g, 0.7, 1, 2), "tensorflow")
		delete(s, "restartPolicy")
		s["tfReplicaType"] = t
		specs = append(specs, s)
	}
	tb := map[string]any{"logDir": "/tmp/tensorflow", "serviceType": one(g, 0.6, "ClusterIP", "LoadBalancer", "NodePort")}
	if g.chance(0.6) {
		vol := g.volume(0)
		tb["volumes"] = []any{vol}
		tb["volumeMounts"] = []any{map[string]any{"name": one(g, 0.9, vol["name"], "elsewhere"), "mountPath": one(g, 0.9, "/tmp/tensorflow", "", "logs")}}
	}
	return map[string]any{"apiVersion": "tensorflow.org/v1alpha1", "kind": "TfJob", "metadata": g.meta(),
		"spec": map[string]any{"replicaSpecs": specs, "tensorboard": tb}}
}

func (g *Generator) runPolicy() map[string]any {
	rp := map[string]any{}
	if g.chance(0.3) {
		rp["cleanPodPolicy"] = anyOf(g, "All", "Running", "None")
	}
	if g.chance(0.2) {
		rp["backoffLimit"] = one(g, 0.8, 3, 0, 100)
	}
	if g.chance(0.2) {
		rp["activeDeadlineSeconds"] = one(g, 0.8, 3600, 1, 9223372036)
	}
	if g.chance(0.1) {
		rp["ttlSecondsAfterFinished"] = one(g, 0.8, 600, 0)
	}
	if g.kueue || g.chance(0.2) {
		sp := map[string]any{}
		if g.kueue || g.chance(0.5) {
			sp["queue"] = one(g, 0.7, "default", "team-a", "a.b_c")
		}
		if g.chance(0.5) {
			sp["minAvailable"] = one(g, 0.7, 2, 0, 1, 100)
		}
		if g.chance(0.3) {
			sp["priorityClass"] = one(g, 0.7, "high", "system-cluster-critical", "a.b")
		}
		rp["schedulingPolicy"] = sp
	}
	return rp
}
