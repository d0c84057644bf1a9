package entrypoints

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/values"
)

// Image is what an image runs when a container sets neither command nor args.
type Image struct {
	// entrypoint is the image's ENTRYPOINT.
	Entrypoint []string `json:"entrypoint,omitempty"`
	// cmd is the image's CMD.
	Cmd []string `json:"cmd,omitempty"`
}

// Map maps image references to their entrypoints, keyed by normalized reference.
type Map map[string]Image

// Parse reads a YAML or JSON map of image references to {entrypoint, cmd}.
func Parse(data []byte) (Map, error) {
	var raw map[string]json.RawMessage
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("image entrypoints: want a map of image references: %w", err)
	}
	m := Map{}
	for _, ref := range sortedKeys(raw) {
		var img Image
		d := json.NewDecoder(bytes.NewReader(raw[ref]))
		d.DisallowUnknownFields()
		if err := d.Decode(&img); err != nil {
			return nil, fmt.Errorf("image entrypoints: %s: %w", ref, err)
		}
		if len(img.Entrypoint) == 0 && len(img.Cmd) == 0 {
			return nil, fmt.Errorf("image entrypoints: %s: needs an entrypoint or a cmd", ref)
		}
		m[Normalize(ref)] = img
	}
	return m, nil
}

// Normalize returns the canonical form of an image reference: Docker Hub's
// implicit registry and library/ namespace removed, ":latest" added when
// there is neither a tag nor a digest.
func Normalize(ref string) string {
	ref = strings.TrimPrefix(ref, "docker.io/")
	ref = strings.TrimPrefix(ref, "index.docker.io/")
	ref = strings.TrimPrefix(ref, "library/")
	name := ref
	if i := strings.IndexByte(name, '@'); i >= 0 {
		return ref
	}
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if !strings.Contains(name, ":") {
		ref += ":latest"
	}
	return ref
}

// Apply gives every training container of j without a command the command
// its image runs (Docker's rules: the entrypoint, then the container's args
// if it has any, else the image's cmd) and returns the replica types it
// changed, sorted.
func Apply(j *job.Job, m Map) []job.ReplicaType {
	if len(m) == 0 {
		return nil
	}
	var changed []job.ReplicaType
	for _, t := range j.ReplicaTypes() {
		ps := &j.Replicas()[t].Template.Spec
		i := values.TrainingContainer(j.Framework(), ps)
		if i < 0 || len(ps.Containers[i].Command) > 0 {
			continue
		}
		c := &ps.Containers[i]
		img, ok := m[Normalize(c.Image)]
		if !ok {
			continue
		}
		args := c.Args
		if len(args) == 0 {
			args = img.Cmd
		}
		if len(img.Entrypoint) > 0 {
			c.Command = append([]string(nil), img.Entrypoint...)
			c.Args = append([]string(nil), args...)
		} else {
			c.Command, c.Args = append([]string(nil), args...), nil
		}
		if len(c.Command) > 0 {
			changed = append(changed, t)
		}
	}
	return changed
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
