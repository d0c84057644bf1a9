package cli

import (
	"crypto/sha256"
	"fmt"

	"github.com/tfgen/tfgen/pkg/input"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/manifest"
)

// origin is where an object comes from: a document, and the job rendered
// from it if any.
type origin struct {
	file      string
	line, doc int
	item      int    // from 1 in a v1 List, else 0
	job       string // "TFJob mnist", or "" for a pass-through document
}

func originOf(doc input.Document, j *job.Job) origin {
	o := origin{file: doc.Name(), line: doc.Line, doc: doc.Index + 1, item: doc.Item}
	if j != nil {
		o.job = j.Source.Kind + " " + j.Name
	}
	return o
}

// String prints "FILE:LINE (document N[, item M][, KIND NAME])".
func (o origin) String() string {
	where := fmt.Sprintf("%s:%d (document %d", o.file, o.line, o.doc)
	if o.item > 0 {
		where += fmt.Sprintf(", item %d", o.item)
	}
	if o.job != "" {
		where += ", " + o.job
	}
	return where + ")"
}

// objectIndex finds objects that two documents both yield: the same API
// group, kind, namespace and name. kubectl apply would keep only the last,
// and kustomize refuses the directory.
type objectIndex struct {
	// seen maps a digest of group, kind, namespace and name (a few bytes
	// per object however long the names) to the index of its origin.
	seen    map[[16]byte]int32
	origins []origin
}

func newObjectIndex() *objectIndex { return &objectIndex{seen: map[[16]byte]int32{}} }

// objectKey is the digest of an object's identity.
func objectKey(group, kind, namespace, name string) [16]byte {
	h := sha256.New()
	for _, s := range []string{group, kind, namespace, name} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	var k [16]byte
	copy(k[:], h.Sum(nil))
	return k
}

// add records the objects of one document, and reports each that an
// earlier document already yielded. Objects without a name (a List, or
// generateName) are not compared.
func (x *objectIndex) add(o origin, objs []manifest.Object) []error {
	here := int32(len(x.origins))
	x.origins = append(x.origins, o)
	var errs []error
	for _, obj := range objs {
		name := obj.Name()
		if name == "" {
			continue
		}
		gvk := obj.GroupVersionKind()
		ns := obj.Namespace()
		key := objectKey(gvk.Group, gvk.Kind, ns, name)
		first, dup := x.seen[key]
		if !dup {
			x.seen[key] = here
			continue
		}
		if first == here {
			errs = append(errs, fmt.Errorf("%s: %s %q%s appears twice", o, gvk.Kind, name, inNamespace(ns)))
			continue
		}
		errs = append(errs, fmt.Errorf("%s: %s %q%s is also rendered from %s; every object needs a name of its own",
			o, gvk.Kind, name, inNamespace(ns), x.origins[first]))
	}
	return errs
}

func inNamespace(ns string) string {
	if ns == "" {
		return ""
	}
	return fmt.Sprintf(" in namespace %q", ns)
}
