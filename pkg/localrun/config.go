package localrun

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/validate"
)

// withCounts returns j with the replica counts of counts (lowercase type
// to count), validated again; j itself is left as it was.
func withCounts(j *job.Job, counts map[string]int32) (*job.Job, error) {
	if len(counts) == 0 {
		return j, nil
	}
	c := *j
	specs := map[job.ReplicaType]*job.ReplicaSpec{}
	for t, s := range j.Replicas() {
		copied := *s
		specs[t] = &copied
	}
	if c.Framework() == job.MXNet {
		c.MXReplicaSpecs = specs
	} else {
		c.TFReplicaSpecs = specs
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(counts)) {
		n, found := counts[name], false
		for t, s := range specs {
			if t.Lower() == strings.ToLower(name) {
				s.Replicas, found = &n, true
			}
		}
		switch {
		case !found:
			var have []string
			for _, t := range c.ReplicaTypes() {
				have = append(have, t.Lower())
			}
			errs = append(errs, fmt.Errorf("--replicas %s=%d: job %s has no replica type %s (it has %s)", name, n, j.Name, name, strings.Join(have, ", ")))
		case n < 0:
			errs = append(errs, fmt.Errorf("--replicas %s=%d: the count must be 0 or more", name, n))
		}
	}
	if len(errs) == 0 {
		for _, e := range validate.Job(&c) {
			errs = append(errs, fmt.Errorf("with --replicas, %w", e))
		}
	}
	return &c, errors.Join(errs...)
}
