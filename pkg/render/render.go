package render

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"text/template"

	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/manifest"
	"github.com/tfgen/tfgen/pkg/render/internal/tmplexec"
	"github.com/tfgen/tfgen/pkg/values"
)

// Object is one rendered object as plain data.
type Object = manifest.Object

// Renderer holds parsed templates; it is safe for concurrent use.
type Renderer struct {
	tmpl *template.Template
	// fast runs tmpl without reflection; where it cannot, tmpl runs.
	fast *tmplexec.Set
	// fallbacks counts the templates the fast path left to tmpl.
	fallbacks atomic.Int64
	// names of the templates that render objects, sorted.
	names []string
}

// New parses every template in fsys once: files ending in .yaml or .yml
// render objects unless their name starts with "_"; .tpl files hold named
// templates only.
func New(fsys fs.FS) (*Renderer, error) {
	t := template.New("tfgen").Funcs(funcMap()).Option("missingkey=error")
	r := &Renderer{tmpl: t}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ext := path.Ext(p)
		if ext != ".yaml" && ext != ".yml" && ext != ".tpl" {
			return nil
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		if _, err := t.New(p).Parse(string(b)); err != nil {
			return fmt.Errorf("parse template: %w", err)
		}
		if ext != ".tpl" && !strings.HasPrefix(path.Base(p), "_") {
			r.names = append(r.names, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(r.names) == 0 {
		return nil, fmt.Errorf("no templates found")
	}
	d := depth{}
	for _, tt := range t.Templates() {
		d[tt.Name()] = new(atomic.Int32)
	}
	t.Funcs(bind(t, d))
	r.fast = tmplexec.Compile(t, funcMap(), "include")
	sort.Strings(r.names)
	return r, nil
}

// Render returns the objects of job j rendered with settings s for the
// cluster c, in the order Helm installs them (by kind, then template
// order).
func (r *Renderer) Render(j *job.Job, s job.Settings, c Capabilities) (objs []Object, err error) {
	vals, err := values.Build(j, s)
	if err != nil {
		return nil, err
	}
	return r.RenderValues(j.Name, j.Namespace, vals, c)
}

// RenderValues renders release name in namespace with chart values vals
// for the cluster c, as `helm template name -n namespace -f values
// --kube-version MAJOR.MINOR.0` would. The message of a template's fail or
// required is returned as it is; other errors keep text/template's
// "template: FILE:LINE:COL: ..." location.
func (r *Renderer) RenderValues(name, namespace string, vals map[string]any, c Capabilities) (objs []Object, err error) {
	caps, err := c.data()
	if err != nil {
		return nil, err
	}
	release := map[string]any{
		"Name": name, "Namespace": namespace, "Service": "tfgen",
		"IsInstall": true, "IsUpgrade": false, "Revision": 1,
	}
	buf := outputs.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= 1<<20 {
			outputs.Put(buf)
		}
	}()
	for _, n := range r.names {
		buf.Reset()
		data := map[string]any{
			"Release":      release,
			"Values":       vals,
			"Capabilities": caps,
			"Template":     map[string]any{"Name": n, "BasePath": path.Dir(n)},
		}
		if err := r.execute(n, buf, data); err != nil {
			return nil, err
		}
		for i, doc := range manifest.SplitDocuments(buf.Bytes()) {
			o, err := manifest.Parse(doc)
			if err != nil {
				return nil, fmt.Errorf("template %s, document %d: %w", n, i+1, err)
			}
			objs = append(objs, o)
		}
	}
	sortByKind(objs)
	return objs, nil
}

// outputs holds buffers for the templates' output, which manifest.Parse
// copies from.
var outputs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// execute runs template n: on the fast path, and when that fails (an
// error, or something it does not handle) with text/template, which gives
// the output or the error text/template always gave.
func (r *Renderer) execute(n string, buf *bytes.Buffer, data any) error {
	if r.fast != nil {
		if r.fast.Execute(buf, n, data) == nil {
			return nil
		}
		r.fallbacks.Add(1)
		buf.Reset()
	}
	return execute(r.tmpl, n, buf, data)
}

// execute runs template n; a panic becomes an error naming the template.
func execute(t *template.Template, n string, buf *bytes.Buffer, data any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("template %s panicked: %v", n, p)
		}
	}()
	if err := t.ExecuteTemplate(buf, n, data); err != nil {
		return cleanError(err)
	}
	return nil
}

// cleanError keeps only the message of fail and required; other errors
// keep text/template's "template: FILE:LINE:COL: ..." location.
func cleanError(err error) error {
	s := err.Error()
	if i := strings.Index(s, msgStart); i >= 0 {
		rest := s[i+len(msgStart):]
		if j := strings.Index(rest, msgEnd); j >= 0 {
			return fmt.Errorf("%s", rest[:j])
		}
	}
	return err
}

// installOrder is Helm's install order for the kinds tfgen renders; other
// kinds follow, sorted by name.
var installOrder = map[string]int{
	"Namespace": 1, "ServiceAccount": 2, "Secret": 3, "ConfigMap": 4, "PersistentVolumeClaim": 5,
	"ClusterRole": 6, "ClusterRoleBinding": 7, "Role": 8, "RoleBinding": 9, "Service": 10,
	"Pod": 11, "Deployment": 12, "StatefulSet": 13, "Job": 14,
}

func sortByKind(objs []manifest.Object) {
	rank := func(o manifest.Object) int {
		if r, ok := installOrder[o.Kind()]; ok {
			return r
		}
		return len(installOrder) + 1
	}
	sort.SliceStable(objs, func(a, b int) bool {
		ra, rb := rank(objs[a]), rank(objs[b])
		if ra != rb {
			return ra < rb
		}
		return ra > len(installOrder) && objs[a].Kind() < objs[b].Kind()
	})
}
