package dialect

import (
	"sort"
	"strings"

	"github.com/tfgen/tfgen/pkg/dialect/caicloud"
	"github.com/tfgen/tfgen/pkg/dialect/internal/convert"
	"github.com/tfgen/tfgen/pkg/dialect/kubedl"
	"github.com/tfgen/tfgen/pkg/dialect/kubeflow"
	"github.com/tfgen/tfgen/pkg/dialect/mxv1alpha1"
	"github.com/tfgen/tfgen/pkg/dialect/t9k"
	"github.com/tfgen/tfgen/pkg/dialect/tfv1alpha1"
)

// Dialect names one apiVersion and kind that Decode converts.
type Dialect struct {
	// APIVersion is group/version.
	APIVersion string
	// Kind as its project spelled it; documents may spell it in any case.
	Kind string
}

type key struct{ apiVersion, kind string }

var (
	registry = map[key]convert.Dialect{}
	// families maps a lowercase kind to its supported apiVersions, sorted.
	families = map[string][]string{}
	groups   = map[string]bool{}
)

func init() {
	for _, ds := range [][]convert.Dialect{kubeflow.Dialects, tfv1alpha1.Dialects, mxv1alpha1.Dialects, t9k.Dialects, kubedl.Dialects, caicloud.Dialects} {
		for _, d := range ds {
			k := key{d.APIVersion, strings.ToLower(d.Kind)}
			if _, dup := registry[k]; dup {
				panic("dialect registered twice: " + d.APIVersion + " " + d.Kind)
			}
			registry[k] = d
			families[k.kind] = append(families[k.kind], d.APIVersion)
			groups[group(d.APIVersion)] = true
		}
	}
	for _, vs := range families {
		sort.Strings(vs)
	}
}

// Supported returns every apiVersion and kind Decode converts, sorted by
// kind, then apiVersion.
func Supported() []Dialect {
	var out []Dialect
	for _, d := range registry {
		out = append(out, Dialect{APIVersion: d.APIVersion, Kind: d.Kind})
	}
	sort.Slice(out, func(a, b int) bool {
		ka, kb := strings.ToLower(out[a].Kind), strings.ToLower(out[b].Kind)
		if ka != kb {
			return ka < kb
		}
		return out[a].APIVersion < out[b].APIVersion
	})
	return out
}

// IsJobKind reports whether kind (in any case) is a training-job kind that
// tfgen converts in some apiVersion: TFJob, TfJob, MXJob, MxJob or
// TensorFlowTrainingJob.
func IsJobKind(kind string) bool { return families[strings.ToLower(kind)] != nil }

func lookup(apiVersion, kind string) (convert.Dialect, bool) {
	d, ok := registry[key{apiVersion, strings.ToLower(kind)}]
	return d, ok
}

func group(apiVersion string) string {
	g, _, _ := strings.Cut(apiVersion, "/")
	return g
}
