package cli

import (
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/dialect"
	"github.com/tfgen/tfgen/pkg/entrypoints"
	"github.com/tfgen/tfgen/pkg/input"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/validate"
	"github.com/tfgen/tfgen/pkg/values"
)

// unit is one input document after decoding: a valid job, or a document
// to pass through unchanged.
type unit struct {
	doc input.Document
	// job is nil for a pass-through document.
	job *job.Job
}

// loaded is what the shared pipeline produces.
type loaded struct {
	units    []unit
	warnings []string
	problems problems
}

// jobs returns the jobs among l's units.
func (l *loaded) jobs() []*job.Job {
	var out []*job.Job
	for _, u := range l.units {
		if u.job != nil {
			out = append(out, u.job)
		}
	}
	return out
}

// load reads, decodes and validates every document of o's paths. Problems
// are collected in l.problems, never returned one by one.
func load(o *inputOptions, stdin io.Reader) (*loaded, error) {
	eps, err := o.entrypoints()
	if err != nil {
		return nil, err
	}
	l := &loaded{}
	docs, err := input.Read(o.Files, stdin)
	l.problems.add(err)
	for _, doc := range docs {
		res, err := dialect.Decode(doc, dialect.Options{Strict: o.Strict})
		l.warnings = append(l.warnings, res.Warnings...)
		if err != nil {
			if res.Job != nil {
				err = dialect.MergeErrors(err, validate.Job(res.Job))
			}
			l.problems.add(err)
			continue
		}
		if res.Passthrough {
			l.units = append(l.units, unit{doc: doc})
			continue
		}
		j := res.Job
		entrypoints.Apply(j, eps)
		if o.GangScheduler != "" {
			if j.Scheduler == nil {
				j.Scheduler = &job.SchedulerSpec{}
			}
			if j.Scheduler.Gang == "" {
				j.Scheduler.Gang = o.GangScheduler
			}
		}
		errs := validate.Job(j)
		errs = append(errs, namespace(j, o.Namespace)...)
		if err := dialect.JobError(j, errs); err != nil {
			l.problems.add(err)
			continue
		}
		l.units = append(l.units, unit{doc: doc, job: j})
	}
	return l, nil
}

// envSize reports replica types whose TF_CONFIG (or MX_CONFIG) would be
// over the kernel's limit for one environment variable, which tfsupervisor
// would find only at run time. Small jobs are skipped: they cannot be.
func envSize(j *job.Job, s job.Settings) error {
	l := values.Layout(j, s)
	if l.Total() < 500 {
		return nil
	}
	// Every address takes over 30 bytes: past 4000 listed replicas the
	// variable cannot fit, and building it would take long.
	listed := l.Total()
	if ps, ok := l.Role("ps"); ok && l.Sparse && l.Framework == cluster.TensorFlow {
		listed = int64(ps.Replicas)
	}
	if listed > 4000 {
		return dialect.JobError(j, field.ErrorList{field.Invalid(j.SpecFieldPath("enableDynamicWorker"), j.EnableDynamicWorker,
			fmt.Sprintf("each replica's cluster spec would list %d replicas, over the kernel's %d-byte limit for one environment variable; set enableDynamicWorker: true so each worker gets the sparse form (itself and the parameter servers only)", listed, cluster.MaxEnvString))})
	}
	ns := j.Namespace
	if ns == "" {
		ns = "default"
	}
	for _, t := range j.ReplicaTypes() {
		if _, err := l.Env(t.Lower(), 0, ns); err != nil {
			return dialect.JobError(j, field.ErrorList{field.Invalid(j.SpecFieldPath("enableDynamicWorker"), j.EnableDynamicWorker, err.Error())})
		}
	}
	return nil
}

// namespace applies -n to a job that sets no namespace; a job in another
// namespace is a problem, as with kubectl apply -n.
func namespace(j *job.Job, ns string) field.ErrorList {
	switch {
	case ns == "" || j.Namespace == ns:
	case j.Namespace == "":
		j.Namespace = ns
	default:
		return field.ErrorList{field.Invalid(field.NewPath("metadata", "namespace"), j.Namespace,
			fmt.Sprintf("does not match -n %s; give -n %s or remove the job's namespace", ns, j.Namespace))}
	}
	return nil
}

// one returns the job named name, or the only job, for commands that take one.
// loadOne loads o's paths as load does, prints the warnings, and returns
// the one job the command works on (named by name when the input holds
// several), or every problem found.
func loadOne(o *inputOptions, s Streams, name string) (*job.Job, error) {
	l, err := load(o, s.In)
	if err != nil {
		return nil, err
	}
	printLines(s, "warning: ", l.warnings)
	if err := l.problems.err(); err != nil {
		return nil, err
	}
	return l.one(name)
}

func (l *loaded) one(name string) (*job.Job, error) {
	jobs := l.jobs()
	if name == "" {
		switch len(jobs) {
		case 0:
			return nil, fmt.Errorf("no training job in the input")
		case 1:
			return jobs[0], nil
		}
		return nil, fmt.Errorf("the input holds %d jobs; choose one with --job NAME", len(jobs))
	}
	for _, j := range jobs {
		if j.Name == name {
			return j, nil
		}
	}
	return nil, fmt.Errorf("no job named %q in the input", name)
}
