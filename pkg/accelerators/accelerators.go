package accelerators

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/tfgen/tfgen/pkg/job"
)

// Config maps an extended resource name to what a container using it gets.
type Config = map[string]job.Accelerator

// Resources the presets apply to.
var gpuResources = []string{"nvidia.com/gpu", "alpha.kubernetes.io/nvidia-gpu"}

// presets are the host paths of the NVIDIA libraries on GKE and Azure nodes,
// as tf-operator's Helm chart configured them (seed 000).
var presets = map[string]job.Accelerator{
	"gke": {Volumes: []job.AcceleratorVolume{
		{Name: "nvidia-libraries", HostPath: "/home/kubernetes/bin/nvidia/lib64", MountPath: "/usr/local/nvidia/lib64"},
		{Name: "nvidia-debug-tools", HostPath: "/home/kubernetes/bin/nvidia/bin", MountPath: "/usr/local/bin/nvidia"},
	}},
	"azure": {
		Volumes: []job.AcceleratorVolume{
			{Name: "nvidia-lib", HostPath: "/usr/lib/nvidia-384", MountPath: "/usr/lib/nvidia"},
			{Name: "nvidia-libcuda", HostPath: "/usr/lib/x86_64-linux-gnu/libcuda.so.1", MountPath: "/usr/lib/x86_64-linux-gnu/libcuda.so.1"},
		},
		EnvVars: []job.EnvVar{{Name: "LD_LIBRARY_PATH", Value: "/usr/lib/nvidia:/usr/lib/x86_64-linux-gnu"}},
	},
}

// Clouds returns the names of the presets, sorted.
func Clouds() []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Preset returns the configuration of cloud for both GPU resource names.
func Preset(cloud string) (Config, error) {
	p, ok := presets[cloud]
	if !ok {
		return nil, fmt.Errorf("unknown cloud %q (want %s)", cloud, strings.Join(Clouds(), " or "))
	}
	c := Config{}
	for _, r := range gpuResources {
		c[r] = p
	}
	return c, nil
}

// Parse reads a configuration: seed 000's controller config file (a map
// with the key `accelerators`) or the bare map of resources. Its
// grpcServerFilePath (seed 000) is ignored; other unknown fields are errors,
// and every volume needs a name, a hostPath and a mountPath.
func Parse(data []byte) (Config, error) {
	var top map[string]json.RawMessage
	if err := yaml.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("accelerators: want a map of resource names: %w", err)
	}
	if inner, ok := top["accelerators"]; ok {
		if len(top) > 1 {
			return nil, fmt.Errorf("accelerators: a controller config holds only the key accelerators")
		}
		top = nil
		if err := json.Unmarshal(inner, &top); err != nil {
			return nil, fmt.Errorf("accelerators: want a map of resource names: %w", err)
		}
	}
	c := Config{}
	for r, raw := range top {
		if r == "grpcServerFilePath" {
			continue
		}
		var a job.Accelerator
		d := json.NewDecoder(bytes.NewReader(raw))
		d.DisallowUnknownFields()
		if err := d.Decode(&a); err != nil {
			return nil, fmt.Errorf("accelerators: %s: %w", r, err)
		}
		c[r] = a
	}
	return c, check(c)
}

// check validates each entry as the fields it becomes: a resource name
// (qualified name), volume names (DNS labels), host and mount paths (set,
// one line), env var names.
func check(c Config) error {
	var errs []string
	add := func(format string, args ...any) { errs = append(errs, "accelerators: "+fmt.Sprintf(format, args...)) }
	for _, r := range sortedKeys(c) {
		for _, m := range validation.IsQualifiedName(r) {
			add("%q: %s", r, m)
		}
		for i, v := range c[r].Volumes {
			if v.Name == "" || v.HostPath == "" || v.MountPath == "" {
				add("%s: volumes[%d]: name, hostPath and mountPath are required", r, i)
				continue
			}
			for _, m := range validation.IsDNS1123Label(v.Name) {
				add("%s: volumes[%d].name %q: %s", r, i, v.Name, m)
			}
			for _, p := range []string{v.HostPath, v.MountPath} {
				if strings.ContainsFunc(p, unicode.IsControl) {
					add("%s: volumes[%d]: path %q must not contain control characters", r, i, p)
				}
			}
		}
		for i, e := range c[r].EnvVars {
			if e.Name == "" {
				add("%s: envVars[%d]: name is required", r, i)
				continue
			}
			for _, m := range validation.IsEnvVarName(e.Name) {
				add("%s: envVars[%d].name %q: %s", r, i, e.Name, m)
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// Merge returns the configurations merged, later ones winning per resource.
func Merge(cs ...Config) Config {
	out := Config{}
	for _, c := range cs {
		for r, a := range c {
			out[r] = a
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func sortedKeys(c Config) []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
