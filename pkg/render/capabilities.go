package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tfgen/tfgen/pkg/version"
)

// Capabilities describe the cluster a render is for; the templates see
// them as .Capabilities, as Helm gives them (from the API server under helm
// install and upgrade, from --kube-version under helm template), so that
// they follow the cluster the same way under both.
type Capabilities struct {
	// KubeVersion is the cluster's Kubernetes minor, MAJOR.MINOR ("1.37");
	// empty: version.KubeVersion, the default of tfgen render's
	// --kube-version. The values' tfgen.kubeVersion, when set, wins in the
	// templates.
	KubeVersion string
}

// data returns c as .Capabilities: KubeVersion with Helm's fields, as Helm
// sets them for `--kube-version MAJOR.MINOR.0` (Version "v1.37.0", Major
// "1", Minor "37", and GitVersion, Helm's deprecated name of Version). It
// fails when KubeVersion is not MAJOR.MINOR.
func (c Capabilities) data() (map[string]any, error) {
	v := c.KubeVersion
	if v == "" {
		v = version.KubeVersion
	}
	major, minor, ok := strings.Cut(v, ".")
	if !ok || !isNumber(major) || !isNumber(minor) {
		return nil, fmt.Errorf("target Kubernetes version %q: want MAJOR.MINOR, such as %s", v, version.KubeVersion)
	}
	full := "v" + major + "." + minor + ".0"
	return map[string]any{"KubeVersion": map[string]any{
		"Version": full, "GitVersion": full, "Major": major, "Minor": minor,
	}}, nil
}

// isNumber reports whether s is a decimal number without sign or leading
// zeros, as Helm prints a version's parts.
func isNumber(s string) bool {
	n, err := strconv.ParseUint(s, 10, 32)
	return err == nil && strconv.FormatUint(n, 10) == s
}
