package harness

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// A FieldChange is a field of an object sent to an API server that the
// server's answer does not hold as it was sent.
type FieldChange struct {
	// Path is the field's, such as
	// spec.template.spec.volumes[name=tfgen-bin] or
	// metadata.labels[app.kubernetes.io/name].
	Path string
	// Sent is the value sent; Returned is the value the server returned,
	// nil when Dropped.
	Sent, Returned any
	// Dropped says the answer lacks the field.
	Dropped bool
}

func (c FieldChange) String() string {
	if c.Dropped {
		return fmt.Sprintf("%s: dropped (sent %s)", c.Path, compact(c.Sent))
	}
	return fmt.Sprintf("%s: sent %s, returned %s", c.Path, compact(c.Sent), compact(c.Returned))
}

// Unkept compares returned, the object an API server answered a create
// (or a dry-run create) with, with sent, the object created, field by
// field, and returns every field sent that did not come back as sent,
// in the order of sent's fields (a map's by key). An older API server
// drops the fields of features it has off without an error; this is how
// a test sees it. What the server adds (defaults, metadata, status) is
// no change, nor is a value spelled otherwise but kept:
//   - a number of either JSON type (1 and 1.0);
//   - a resource quantity ("0.5" and "500m", 1000 and "1k"), in a map
//     of them (limits, requests, overhead, minResources) or a sizeLimit;
//   - a null sent, which is unset: the server may default it;
//   - an empty list or map sent that comes back absent (omitempty).
//
// A list whose elements all have a distinct name (containers, volumes,
// env), or else a distinct mountPath (volumeMounts), is matched element
// by element on it, so that a dropped element is named rather than the
// next one found changed; the matched elements' order must be kept.
// Other lists are matched by index.
func Unkept(sent, returned Object) []FieldChange {
	var c comparer
	c.compare("", sent, returned)
	return c.out
}

// comparer collects the changes of one comparison.
type comparer struct{ out []FieldChange }

// compare compares got, present in the answer, with sent at path.
func (c *comparer) compare(path string, sent, got any) {
	switch s := sent.(type) {
	case nil:
		return
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			c.changed(path, sent, got)
			return
		}
		for _, k := range slices.Sorted(maps.Keys(s)) {
			p := child(path, k)
			v, ok := g[k]
			if !ok {
				c.absent(p, s[k])
				continue
			}
			c.compareField(p, path, k, s[k], v)
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			c.changed(path, sent, got)
			return
		}
		c.compareList(path, s, g)
	default:
		if !sameScalar(sent, got) {
			c.changed(path, sent, got)
		}
	}
}

// compareField compares the field key of the map at mapPath; it is a
// resource quantity (sent as a string or a number, returned as a string)
// where quantityField says so.
func (c *comparer) compareField(path, mapPath, key string, sent, got any) {
	if quantityField(mapPath, key) {
		s, ok := sent.(string)
		if n, isNumber := number(sent); isNumber {
			s, ok = strconv.FormatFloat(n, 'f', -1, 64), true
		}
		if g, isString := got.(string); ok && isString && sameQuantity(s, g) {
			return
		}
	}
	c.compare(path, sent, got)
}

// compareList matches got's elements with sent's by listKey, else by
// index.
func (c *comparer) compareList(path string, sent, got []any) {
	key := listKey(sent)
	if key == "" {
		for i, s := range sent {
			p := fmt.Sprintf("%s[%d]", path, i)
			if i >= len(got) {
				c.absent(p, s)
				continue
			}
			c.compare(p, s, got[i])
		}
		return
	}
	at := map[string]int{}
	for i, g := range got {
		if m, ok := g.(map[string]any); ok {
			if v, ok := m[key].(string); ok {
				if _, dup := at[v]; !dup {
					at[v] = i
				}
			}
		}
	}
	last, ordered := -1, true
	var sentOrder, gotOrder []string
	for _, s := range sent {
		v := s.(map[string]any)[key].(string)
		p := fmt.Sprintf("%s[%s=%s]", path, key, v)
		i, ok := at[v]
		if !ok {
			c.absent(p, s)
			continue
		}
		sentOrder = append(sentOrder, v)
		ordered = ordered && i > last
		last = i
		c.compare(p, s, got[i])
	}
	if !ordered {
		for _, g := range got {
			if m, ok := g.(map[string]any); ok {
				if v, ok := m[key].(string); ok && slices.Contains(sentOrder, v) {
					gotOrder = append(gotOrder, v)
				}
			}
		}
		c.changed(path+" (order of "+key+")", sentOrder, gotOrder)
	}
}

func (c *comparer) absent(path string, sent any) {
	if empty(sent) {
		return
	}
	c.out = append(c.out, FieldChange{Path: path, Sent: sent, Dropped: true})
}

func (c *comparer) changed(path string, sent, got any) {
	c.out = append(c.out, FieldChange{Path: path, Sent: sent, Returned: got})
}

// listKey is the field that tells sent's elements apart: name, else
// mountPath, when every element is a map with a distinct string value of
// it; "" otherwise.
func listKey(sent []any) string {
next:
	for _, key := range []string{"name", "mountPath"} {
		seen := map[string]bool{}
		for _, e := range sent {
			m, ok := e.(map[string]any)
			if !ok {
				return ""
			}
			v, ok := m[key].(string)
			if !ok || seen[v] {
				continue next
			}
			seen[v] = true
		}
		return key
	}
	return ""
}

// quantityMaps are the maps of resource quantities an object holds:
// containers' and claims' limits and requests, a pod's overhead, and a
// Volcano PodGroup's minResources.
var quantityMaps = []string{"limits", "requests", "overhead", "minResources"}

// quantityField reports whether field key of the map at mapPath is a
// resource quantity.
func quantityField(mapPath, key string) bool {
	if key == "sizeLimit" {
		return true
	}
	i := strings.LastIndexAny(mapPath, ".]")
	return slices.Contains(quantityMaps, mapPath[i+1:])
}

func sameQuantity(a, b string) bool {
	qa, err := resource.ParseQuantity(a)
	if err != nil {
		return false
	}
	qb, err := resource.ParseQuantity(b)
	return err == nil && qa.Cmp(qb) == 0
}

// sameScalar compares two JSON scalars, numbers of any Go type by value.
func sameScalar(a, b any) bool {
	if na, ok := number(a); ok {
		nb, ok := number(b)
		return ok && na == nb
	}
	return a == b
}

// number is v as a float64 if v is a JSON number: float64 from
// encoding/json, int64 from the API machinery's decoder.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func empty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}

// identifier is a map key written after a dot in a path; others go in
// brackets.
var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$-]*$`)

func child(path, key string) string {
	switch {
	case !identifier.MatchString(key):
		return path + "[" + key + "]"
	case path == "":
		return key
	}
	return path + "." + key
}

// compact is v as JSON, cut to 300 bytes.
func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}
