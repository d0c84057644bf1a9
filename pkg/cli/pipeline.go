package cli

import (
	"context"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/dialect"
	"github.com/tfgen/tfgen/pkg/entrypoints"
	"github.com/tfgen/tfgen/pkg/input"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/validate"
)

// unit is one input document after decoding: a valid job, or a document
// to pass through unchanged.
type unit struct {
	doc input.Document
	// job is nil for a pass-through document.
	job *job.Job
}

// loader reads, decodes and validates the documents of a command's input,
// one at a time. Problems are collected in problems, never returned one by
// one, and warnings in warnings.
type loader struct {
	o        *inputOptions
	eps      entrypoints.Map
	warnings []string
	problems problems
	// jobs locates each job seen so far by namespace and name, to find
	// two jobs of the same name.
	jobs map[[2]string]origin
}

func newLoader(o *inputOptions) (*loader, error) {
	eps, err := o.entrypoints()
	if err != nil {
		return nil, err
	}
	return &loader{o: o, eps: eps, jobs: map[[2]string]origin{}}, nil
}

// each calls f with every valid job and pass-through document in input
// order, reading, decoding and validating one document at a time, so that
// a long stream is never held whole. It returns the cause of ctx's end
// when ctx ends first.
func (l *loader) each(ctx context.Context, stdin io.Reader, f func(unit)) error {
	for doc, err := range input.All(ctx, l.o.Files, stdin) {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if err != nil {
			l.problems.add(err)
			continue
		}
		if u, ok := l.decode(doc); ok {
			f(u)
		}
	}
	return context.Cause(ctx)
}

// decode decodes and validates one document, recording its problems.
func (l *loader) decode(doc input.Document) (unit, bool) {
	res, err := dialect.Decode(doc, dialect.Options{Strict: l.o.Strict})
	l.warnings = append(l.warnings, res.Warnings...)
	if err != nil {
		if res.Job != nil {
			err = dialect.MergeErrors(err, validate.Job(res.Job))
		}
		l.problems.add(err)
		return unit{}, false
	}
	if res.Passthrough {
		return unit{doc: doc}, true
	}
	j := res.Job
	if doc.Finished != "" {
		l.warnings = append(l.warnings, fmt.Sprintf("%s: %s %s: the job had finished (%s) where it was read from; applying it runs it again",
			doc.Name(), j.Source.Kind, j.Name, doc.Finished))
	}
	entrypoints.Apply(j, l.eps)
	if l.o.GangScheduler != "" {
		if j.Scheduler == nil {
			j.Scheduler = &job.SchedulerSpec{}
		}
		if j.Scheduler.Gang == "" {
			j.Scheduler.Gang = l.o.GangScheduler
		}
	}
	setAnnotation(j, job.AnnotationEvaluatorGrace, l.o.EvaluatorGrace)
	setAnnotation(j, job.AnnotationRestartScope, l.o.RestartScope)
	setAnnotation(j, job.AnnotationLocality, l.o.Locality)
	if validate.Elastic(j) {
		setAnnotation(j, job.AnnotationElastic, "dragon")
	}
	errs := append(validate.Job(j), validate.Env(j)...)
	errs = append(errs, namespace(j, l.o.Namespace)...)
	errs = append(errs, l.unique(doc, j)...)
	if err := dialect.JobError(j, errs); err != nil {
		l.problems.add(err)
		return unit{}, false
	}
	l.warnings = append(l.warnings, dialect.JobWarnings(j, validate.EnvReplaced(j))...)
	return unit{doc: doc, job: j}, true
}

// unique reports a job named like one read before in the same namespace.
func (l *loader) unique(doc input.Document, j *job.Job) field.ErrorList {
	key := [2]string{j.Namespace, j.Name}
	if first, dup := l.jobs[key]; dup {
		return field.ErrorList{{Type: field.ErrorTypeDuplicate, Field: "metadata.name", BadValue: j.Name,
			Detail: fmt.Sprintf("the job from %s has the same name%s as the one from %s; every job needs a name of its own", originOf(doc, j), inNamespace(j.Namespace), first)}}
	}
	l.jobs[key] = originOf(doc, j)
	return nil
}

// load loads every document of o's paths as each does and returns the
// units, for commands that need the whole input.
func load(ctx context.Context, o *inputOptions, stdin io.Reader) (*loader, []unit, error) {
	l, err := newLoader(o)
	if err != nil {
		return nil, nil, err
	}
	var units []unit
	err = l.each(ctx, stdin, func(u unit) { units = append(units, u) })
	return l, units, err
}

// loadOne loads o's paths as load does, prints the warnings, and returns
// the one job the command works on (named by name when the input holds
// several), or every problem found.
func loadOne(ctx context.Context, o *inputOptions, s Streams, name string) (*job.Job, error) {
	l, units, err := load(ctx, o, s.In)
	if err != nil {
		return nil, err
	}
	printLines(s, "warning: ", l.warnings)
	if err := l.problems.err(); err != nil {
		return nil, err
	}
	return one(units, name)
}

// one returns the job named name, or the only job, for commands that take one.
func one(units []unit, name string) (*job.Job, error) {
	var jobs []*job.Job
	for _, u := range units {
		if u.job != nil {
			jobs = append(jobs, u.job)
		}
	}
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

// setAnnotation sets annotation key of job j to v (a render flag's value)
// unless v is empty or the job sets the annotation itself.
func setAnnotation(j *job.Job, key, v string) {
	if _, ok := j.Annotations[key]; ok || v == "" {
		return
	}
	if j.Annotations == nil {
		j.Annotations = map[string]string{}
	}
	j.Annotations[key] = v
}
