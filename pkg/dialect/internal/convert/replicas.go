package convert

import (
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/job"
)

// TFTypes and MXTypes are the canonical replica types of each framework.
var (
	TFTypes = []job.ReplicaType{job.Chief, job.Evaluator, job.Master, job.PS, job.Worker}
	MXTypes = []job.ReplicaType{job.Scheduler, job.Server, job.Tuner, job.TunerServer, job.TunerTracker, job.Worker}
)

// Types returns the canonical replica types of framework f.
func Types(f job.Framework) []job.ReplicaType {
	if f == job.MXNet {
		return MXTypes
	}
	return TFTypes
}

// Normalize returns the canonical replica type that s spells in any case
// (Ps, PS, WORKER, master, tunertracker) for framework f.
func Normalize(f job.Framework, s string) (job.ReplicaType, bool) {
	for _, t := range Types(f) {
		if strings.EqualFold(string(t), s) {
			return t, true
		}
	}
	return "", false
}

// Replicas collects a job's replica specs with the user's path of each, so
// that messages about a replica name it as the user wrote it.
type Replicas struct {
	framework job.Framework
	specs     map[job.ReplicaType]*job.ReplicaSpec
	paths     map[job.ReplicaType]*field.Path
	typePaths map[job.ReplicaType]*field.Path
	fields    map[string]*field.Path
}

// NewReplicas starts the replica specs of a job of framework f.
func NewReplicas(f job.Framework) *Replicas {
	return &Replicas{
		framework: f,
		specs:     map[job.ReplicaType]*job.ReplicaSpec{},
		paths:     map[job.ReplicaType]*field.Path{},
		typePaths: map[job.ReplicaType]*field.Path{},
		fields:    map[string]*field.Path{},
	}
}

// Add adds spec as type t, written at path, its type spelled as spelled at
// typePath (the map key or the list entry's type field). A second spec of
// the same type is a Duplicate error at its typePath.
func (r *Replicas) Add(c *Context, t job.ReplicaType, spelled string, spec *job.ReplicaSpec, path, typePath *field.Path) bool {
	if _, dup := r.typePaths[t]; dup {
		e := field.Duplicate(typePath, spelled)
		e.Detail = "the job already has a " + string(t) + " replica spec at " + r.paths[t].String()
		c.Error(e)
		return false
	}
	r.specs[t] = spec
	r.paths[t] = path
	r.typePaths[t] = typePath
	return true
}

// Get returns the spec of type t, or nil.
func (r *Replicas) Get(t job.ReplicaType) *job.ReplicaSpec { return r.specs[t] }

// Path returns the user's path of type t, or nil.
func (r *Replicas) Path(t job.ReplicaType) *field.Path { return r.paths[t] }

// Types returns the types added, sorted.
func (r *Replicas) Types() []job.ReplicaType {
	ts := make([]job.ReplicaType, 0, len(r.specs))
	for t := range r.specs {
		ts = append(ts, t)
	}
	sort.Slice(ts, func(a, b int) bool { return ts[a] < ts[b] })
	return ts
}

// SetField records the user's path of a canonical field (see job.Paths.Fields).
func (r *Replicas) SetField(key string, p *field.Path) { r.fields[key] = p }

// SetReplicaField records the user's path of field name of replica type t.
func (r *Replicas) SetReplicaField(t job.ReplicaType, name string, p *field.Path) {
	r.fields[string(t)+"."+name] = p
}

// Fill puts the replica specs into j and returns the paths for j.Source,
// with replicas the path of the specs as a whole and runPolicy the path of
// the run policy.
func (r *Replicas) Fill(j *job.Job, replicas, runPolicy *field.Path) job.Paths {
	if r.framework == job.MXNet {
		j.MXReplicaSpecs = r.specs
	} else {
		j.TFReplicaSpecs = r.specs
	}
	paths := r.paths
	fallback := replicas
	return job.Paths{
		Replica: func(t job.ReplicaType) *field.Path {
			if p, ok := paths[t]; ok {
				return p
			}
			return fallback.Key(string(t))
		},
		RunPolicy: runPolicy,
		Replicas:  replicas,
		Fields:    r.fields,
	}
}
