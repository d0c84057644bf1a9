package operate

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/tfgen/tfgen/pkg/cluster"
)

// rolesEnv is the environment form of tfsupervisor's --roles flag.
const rolesEnv = "TFSUPERVISOR_ROLES"

// supervisorFlags are the flags of a tfsupervisor run|watch command line
// that rescaling reads.
type supervisorFlags struct {
	mode, job, framework, roles, clusterDomain, container string
	sparse                                                bool
	rolesAt                                               int // index in the command of --roles' value (-1: none)
	rolesInline                                           bool
}

// parseSupervisor reads the tfsupervisor flags of command, or returns
// false when command is no `tfsupervisor run|watch|hold`. Only the flags before
// `--` are the supervisor's.
func parseSupervisor(command []string) (supervisorFlags, bool) {
	f := supervisorFlags{rolesAt: -1}
	if len(command) < 2 || !slices.Contains([]string{"tfsupervisor", "tfsupervisor-wrap"}, path.Base(command[0])) ||
		!slices.Contains([]string{"run", "watch", "hold"}, command[1]) {
		return f, false
	}
	f.mode = command[1]
	for i := 2; i < len(command) && command[i] != "--"; i++ {
		name, value, inline := strings.Cut(strings.TrimLeft(command[i], "-"), "=")
		at := i
		// A flag followed by another is a boolean one (--sparse,
		// --complete...): no value of tfgen's starts with "--".
		if !inline && i+1 < len(command) && !strings.HasPrefix(command[i+1], "--") {
			value, at = command[i+1], i+1
		}
		switch name {
		case "job":
			f.job = value
		case "framework":
			f.framework = value
		case "roles":
			f.roles, f.rolesAt, f.rolesInline = value, at, inline
		case "cluster-domain":
			f.clusterDomain = value
		case "container":
			f.container = value
		case "sparse":
			f.sparse = !inline || value == "true"
		}
		i = at
	}
	return f, true
}

// rescaleSidecars rescales pod spec ps (rescale) if it runs in sidecar
// mode, whose TF_CONFIG (or MX_CONFIG and DMLC_*) is in the template;
// wrap mode's supervisors take the counts from the record at run time.
func rescaleSidecars(ps *corev1.PodSpec, t string, n int32) (bool, error) {
	for _, c := range ps.Containers {
		if f, ok := parseSupervisor(c.Command); ok && f.mode == "watch" && f.container != "" {
			return rescale(ps, t, n)
		}
	}
	return false, nil
}

// rescale rewrites pod spec ps so that its pods run with n replicas of
// type t: the --roles of its tfsupervisor (command line and
// TFSUPERVISOR_ROLES), from which the supervisor builds TF_CONFIG, and in
// sidecar mode the training container's cluster env, written at render
// time. It reports whether anything changed.
func rescale(ps *corev1.PodSpec, t string, n int32) (bool, error) {
	changed := false
	// Wrap mode's sidecar (an init container) has the flags too.
	containers := make([]*corev1.Container, 0, len(ps.InitContainers)+len(ps.Containers))
	for i := range ps.InitContainers {
		containers = append(containers, &ps.InitContainers[i])
	}
	for i := range ps.Containers {
		containers = append(containers, &ps.Containers[i])
	}
	for _, c := range containers {
		f, ok := parseSupervisor(c.Command)
		if !ok {
			continue
		}
		for ei := range c.Env {
			if e := &c.Env[ei]; e.Name == rolesEnv && e.ValueFrom == nil {
				if f.roles == "" { // the flag wins over its variable
					f.roles = e.Value
				}
				v, err := setRole(e.Value, t, n)
				if err != nil {
					return false, fmt.Errorf("container %s: %s: %w", c.Name, rolesEnv, err)
				}
				changed, e.Value = changed || v != e.Value, v
			}
		}
		if f.rolesAt >= 0 {
			v, err := setRole(f.roles, t, n)
			if err != nil {
				return false, fmt.Errorf("container %s: --roles: %w", c.Name, err)
			}
			if f.rolesInline {
				v = "--roles=" + v
			}
			changed, c.Command[f.rolesAt] = changed || v != c.Command[f.rolesAt], v
		}
		if f.mode == "watch" && f.container != "" && f.roles != "" {
			ch, err := rescaleSidecar(ps, f, t, n)
			if err != nil {
				return false, err
			}
			changed = changed || ch
		}
	}
	return changed, nil
}

// setRole returns roles (pkg/cluster.EncodeRoles form) with n replicas of
// type t.
func setRole(roles, t string, n int32) (string, error) {
	rs, err := cluster.ParseRoles(roles)
	if err != nil {
		return "", err
	}
	found := false
	for i := range rs {
		if rs[i].Type == t {
			rs[i].Replicas, found = n, true
		}
	}
	if !found {
		return "", fmt.Errorf("roles %q have no type %s", roles, t)
	}
	return cluster.EncodeRoles(rs), nil
}

// rescaleSidecar rewrites the cluster env of the training container that
// the sidecar supervisor f watches: the list of type t's addresses in a
// dense TF_CONFIG or in MX_CONFIG, and DMLC_NUM_WORKER. A sparse TF_CONFIG
// (dynamic workers) lists no other worker and stays as it is.
func rescaleSidecar(ps *corev1.PodSpec, f supervisorFlags, t string, n int32) (bool, error) {
	oldRoles, err := cluster.ParseRoles(f.roles)
	if err != nil {
		return false, err
	}
	old := &cluster.Layout{Job: f.job, Framework: f.framework, Roles: oldRoles, ClusterDomain: f.clusterDomain}
	r, _ := old.Role(t)
	oldN := r.Replicas
	mx := f.framework == cluster.MXNet
	changed := false
	for ci := range ps.Containers {
		c := &ps.Containers[ci]
		if c.Name != f.container {
			continue
		}
		hasConfig := false
		for ei := range c.Env {
			e := &c.Env[ei]
			if e.ValueFrom != nil {
				continue
			}
			switch {
			case e.Name == "TF_CONFIG" && !mx, e.Name == "MX_CONFIG" && mx:
				hasConfig = true
				if f.sparse && !mx {
					continue
				}
				ns := namespaceVar(e.Value)
				from, to := addressList(old, t, oldN, mx, ns), addressList(old, t, n, mx, ns)
				if !strings.Contains(e.Value, from) {
					return false, fmt.Errorf("container %s: %s does not list the %d %s replicas tfgen rendered; it was changed by hand, so render the job again instead", c.Name, e.Name, oldN, t)
				}
				v := strings.Replace(e.Value, from, to, 1)
				changed, e.Value = changed || v != e.Value, v
			case e.Name == "DMLC_NUM_WORKER" && mx && t == "worker":
				v := strconv.Itoa(int(n))
				changed, e.Value = changed || v != e.Value, v
			}
		}
		if !hasConfig && !f.sparse {
			return false, fmt.Errorf("container %s runs in sidecar mode and was rendered without %s (a job of one replica): render the job again with the new count instead",
				c.Name, map[bool]string{false: "TF_CONFIG", true: "MX_CONFIG"}[mx])
		}
	}
	return changed, nil
}

// namespaceVar is the kubelet expansion of the namespace that a rendered
// TF_CONFIG or MX_CONFIG value holds: $(TFGEN_POD_NAMESPACE), or
// $(POD_NAMESPACE) in one rendered by a tfgen before it.
func namespaceVar(value string) string {
	if strings.Contains(value, "$(TFGEN_POD_NAMESPACE)") {
		return "$(TFGEN_POD_NAMESPACE)"
	}
	return "$(POD_NAMESPACE)"
}

// addressList is `"t":[...]` with n replicas of type t, as the templates
// write it in TF_CONFIG's cluster or MX_CONFIG's, with the namespace left
// to the kubelet's expansion of ns.
func addressList(l *cluster.Layout, t string, n int32, mx bool, ns string) string {
	r, _ := l.Role(t)
	items := make([]string, n)
	for i := range items {
		host := l.Host(t, int32(i), ns)
		if mx {
			items[i] = fmt.Sprintf(`{"url":%s,"port":%d}`, quote(host), r.Port)
		} else {
			items[i] = quote(host + ":" + strconv.Itoa(int(r.Port)))
		}
	}
	return quote(t) + ":[" + strings.Join(items, ",") + "]"
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
