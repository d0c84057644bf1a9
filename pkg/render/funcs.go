package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"sigs.k8s.io/yaml"

	"github.com/tfgen/tfgen/pkg/manifest"
)

// maxIncludeDepth stops a template that includes itself forever, as Helm does.
const maxIncludeDepth = 1000

// Messages of fail and required are wrapped so that they can be told apart
// from template bugs and shown alone.
const (
	msgStart = "TFGEN_MSG_START"
	msgEnd   = "TFGEN_MSG_END"
)

func wrapMsg(s string) error { return errors.New(msgStart + s + msgEnd) }

// funcMap returns sprig's functions minus env and expandenv plus Helm's
// additions. include and tpl are bound to a template set per render.
func funcMap() template.FuncMap {
	f := sprig.TxtFuncMap()
	delete(f, "env")
	delete(f, "expandenv")
	helm := template.FuncMap{
		"toYaml":        toYAML,
		"mustToYaml":    mustToYAML,
		"fromYaml":      fromYAML,
		"fromYamlArray": fromYAMLArray,
		"toJson":        toJSON,
		"mustToJson":    mustToJSON,
		"fromJson":      fromJSON,
		"fromJsonArray": fromJSONArray,
		"required":      required,
		"fail":          fail,
		// DNS lookups would make output depend on the machine, as in Helm.
		"getHostByName": func(string) string { return "" },
		"include":       func(string, any) (string, error) { return "", errors.New("include is not bound") },
		"tpl":           func(string, any) (string, error) { return "", errors.New("tpl is not bound") },
	}
	for name, fn := range helm {
		f[name] = fn
	}
	f["semverCompare"] = cachedSemverCompare(f["semverCompare"].(func(string, string) (bool, error)))
	f["regexFind"] = cachedRegexFind()
	return f
}

// maxRegexpCache bounds the patterns cachedRegexFind keeps compiled.
const maxRegexpCache = 64

// cachedRegexFind returns sprig's regexFind compiling each pattern once:
// tfjob.kubeVersion finds the cluster's MAJOR.MINOR with it in every
// render, and compiling the pattern was nearly all of its cost. A pattern
// that does not compile panics, as in sprig.
func cachedRegexFind() func(string, string) string {
	var (
		cache sync.Map // pattern -> *regexp.Regexp
		size  atomic.Int32
	)
	return func(pattern, s string) string {
		if r, ok := cache.Load(pattern); ok {
			return r.(*regexp.Regexp).FindString(s)
		}
		r := regexp.MustCompile(pattern)
		if size.Add(1) <= maxRegexpCache {
			cache.Store(pattern, r)
		}
		return r.FindString(s)
	}
}

// maxSemverCache bounds the answers cachedSemverCompare keeps.
const maxSemverCache = 1024

// cachedSemverCompare returns compare remembering its answers: templates
// compare the same target Kubernetes version with the same constraints
// for every job, and parsing the constraint was a tenth of a render.
func cachedSemverCompare(compare func(string, string) (bool, error)) func(string, string) (bool, error) {
	type answer struct {
		ok  bool
		err error
	}
	var (
		cache sync.Map // [2]string -> answer
		size  atomic.Int32
	)
	return func(constraint, version string) (bool, error) {
		key := [2]string{constraint, version}
		if a, ok := cache.Load(key); ok {
			return a.(answer).ok, a.(answer).err
		}
		ok, err := compare(constraint, version)
		if size.Add(1) <= maxSemverCache {
			cache.Store(key, answer{ok, err})
		}
		return ok, err
	}
}

// depth counts the includes of each template in progress, across renders,
// to stop a template that includes itself forever (Helm stops at 1000 per
// render; concurrent renders share these counters, so the bound is looser).
type depth map[string]*atomic.Int32

// bind returns include and tpl closed over t.
func bind(t *template.Template, d depth) template.FuncMap {
	include := func(name string, data any) (string, error) {
		if n := d[name]; n != nil {
			if n.Add(1) > maxIncludeDepth {
				n.Add(-1)
				return "", wrapMsg(fmt.Sprintf("template %s includes itself more than %d times", name, maxIncludeDepth))
			}
			defer n.Add(-1)
		}
		var b strings.Builder
		err := t.ExecuteTemplate(&b, name, data)
		return b.String(), err
	}
	tpl := func(text string, data any) (string, error) {
		c, err := t.Clone()
		if err != nil {
			return "", fmt.Errorf("tpl: %w", err)
		}
		c.Funcs(bind(c, d))
		c, err = c.New(t.Name()).Parse(text)
		if err != nil {
			return "", fmt.Errorf("tpl: cannot parse %q: %w", text, err)
		}
		var b strings.Builder
		if err := c.Execute(&b, data); err != nil {
			return "", fmt.Errorf("tpl: executing %q: %w", text, err)
		}
		return b.String(), nil
	}
	return template.FuncMap{"include": include, "tpl": tpl}
}

func required(msg string, v any) (any, error) {
	if v == nil {
		return v, wrapMsg(msg)
	}
	if s, ok := v.(string); ok && s == "" {
		return v, wrapMsg(msg)
	}
	return v, nil
}

func fail(msg string) (string, error) { return "", wrapMsg(msg) }

func toYAML(v any) string {
	b, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(b), "\n")
}

func mustToYAML(v any) (string, error) {
	b, err := yaml.Marshal(v)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(b), "\n"), nil
}

func fromYAML(s string) map[string]any {
	m := map[string]any{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromYAMLArray(s string) []any {
	a := []any{}
	if err := yaml.Unmarshal([]byte(s), &a); err != nil {
		a = []any{err.Error()}
	}
	return a
}

func toJSON(v any) string {
	s, _ := mustToJSON(v)
	return s
}

// jsonBufs are scratch buffers of mustToJSON.
var jsonBufs = sync.Pool{New: func() any { return new([]byte) }}

// mustToJSON is json.Marshal; plain data (what templates handle) is
// written without reflection, byte for byte the same.
func mustToJSON(v any) (string, error) {
	bp := jsonBufs.Get().(*[]byte)
	b, ok := manifest.AppendJSON((*bp)[:0], v)
	s := string(b) // before the buffer goes back to the pool
	if cap(b) <= 1<<20 {
		*bp = b[:0]
		jsonBufs.Put(bp)
	}
	if ok {
		return s, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

func fromJSON(s string) map[string]any {
	m := map[string]any{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromJSONArray(s string) []any {
	a := []any{}
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		a = []any{err.Error()}
	}
	return a
}
