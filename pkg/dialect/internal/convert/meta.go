package convert

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfgen/tfgen/pkg/job"
)

// Meta copies the job's metadata into j: name, namespace, labels and
// annotations (KubeShare's and any other annotations survive). A job with
// only metadata.generateName is named deterministically by GenerateName,
// with a warning, so that rendering twice gives the same objects.
func (c *Context) Meta(m *metav1.ObjectMeta, j *job.Job) {
	j.Name = m.Name
	j.Namespace = m.Namespace
	j.Labels = maps.Clone(m.Labels)
	j.Annotations = maps.Clone(m.Annotations)
	if j.Name == "" && m.GenerateName != "" {
		j.Name = GenerateName(m.GenerateName, c.Object["spec"])
		c.Warn("metadata.generateName: the job is named %q, the prefix plus a hash of its spec, the same on every run; set metadata.name to choose the name", j.Name)
	}
}

// GenerateName returns prefix followed by the first 5 hex digits of the
// SHA-256 of spec as JSON (keys sorted), a stand-in for the API server's
// random suffix that stays the same for the same spec.
func GenerateName(prefix string, spec any) string {
	b, err := json.Marshal(spec)
	if err != nil {
		b = nil
	}
	sum := sha256.Sum256(b)
	return prefix + hex.EncodeToString(sum[:])[:5]
}
