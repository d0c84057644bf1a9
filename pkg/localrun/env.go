package localrun

import (
	"fmt"
	"net"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/job"
)

// envList is an environment in which a later value replaces an earlier
// one in place.
type envList struct {
	names []string
	vals  map[string]string
}

func (e *envList) set(name, value string) {
	if e.vals == nil {
		e.vals = map[string]string{}
	}
	if _, ok := e.vals[name]; !ok {
		e.names = append(e.names, name)
	}
	e.vals[name] = value
}

func (e *envList) lookup(name string) (string, bool) {
	v, ok := e.vals[name]
	return v, ok
}

// strings returns the list as NAME=value strings.
func (e *envList) strings() []string {
	out := make([]string, len(e.names))
	for i, n := range e.names {
		out[i] = n + "=" + e.vals[n]
	}
	return out
}

// containerEnv returns what the kubelet would give container c of the
// pod meta describes before the supervisor adds its own: TFGEN_POD_NAME
// and TFGEN_POD_NAMESPACE, POD_NAME and POD_NAMESPACE (the downward API
// entries tfgen renders first, the last two unless c sets them), then c's
// env values with $(VAR) expanded, and what c takes
// from the downward API that a local run knows (the pod's name,
// namespace, labels and annotations). Entries the kubelet would resolve
// from the cluster (other valueFrom, envFrom) are skipped and named in
// the warnings.
func containerEnv(c *corev1.Container, meta podMeta) (env *envList, skipped []string) {
	env = &envList{}
	env.set("TFGEN_POD_NAME", meta.name)
	env.set("TFGEN_POD_NAMESPACE", meta.namespace)
	own := map[string]bool{}
	for _, e := range c.Env {
		own[e.Name] = true
	}
	if !own["POD_NAME"] {
		env.set("POD_NAME", meta.name)
	}
	if !own["POD_NAMESPACE"] {
		env.set("POD_NAMESPACE", meta.namespace)
	}
	for _, e := range c.Env {
		if e.ValueFrom != nil {
			if v, ok := downwardValue(e.ValueFrom, meta); ok {
				env.set(e.Name, v)
			} else {
				skipped = append(skipped, fmt.Sprintf("env %s (valueFrom)", e.Name))
			}
			continue
		}
		env.set(e.Name, expand(e.Value, env.lookup))
	}
	for _, from := range c.EnvFrom {
		switch {
		case from.ConfigMapRef != nil:
			skipped = append(skipped, fmt.Sprintf("envFrom configMap %s", from.ConfigMapRef.Name))
		case from.SecretRef != nil:
			skipped = append(skipped, fmt.Sprintf("envFrom secret %s", from.SecretRef.Name))
		}
	}
	return env, skipped
}

// downwardValue resolves an env var's valueFrom that names a field of the
// pod a local run knows.
func downwardValue(from *corev1.EnvVarSource, meta podMeta) (string, bool) {
	if from.FieldRef == nil {
		return "", false
	}
	return meta.field(from.FieldRef.FieldPath)
}

// loopbackEnv returns what a replica of a job of framework f needs besides
// the cluster's environment to reach its peers on localhost. For MXNet:
// ps-lite announces to the scheduler the address of DMLC_NODE_HOST, else of
// DMLC_INTERFACE, else of the first interface that is up and not loopback,
// which is not where a local run's peers are (and on a machine with
// loopback only, servers and workers abort: "Check failed:
// !interface.empty()"). In a pod, the pod's own address is right.
func loopbackEnv(f job.Framework) []cluster.EnvVar {
	if f != job.MXNet {
		return nil
	}
	return []cluster.EnvVar{{Name: "DMLC_NODE_HOST", Value: "127.0.0.1"}, {Name: "DMLC_INTERFACE", Value: loopbackInterface()}}
}

// loopbackInterface returns the name of this machine's loopback interface:
// lo on Linux, lo0 on BSDs and macOS.
func loopbackInterface() string {
	ifs, err := net.Interfaces()
	if err == nil {
		for _, i := range ifs {
			if i.Flags&net.FlagLoopback != 0 && i.Flags&net.FlagUp != 0 {
				return i.Name
			}
		}
	}
	return "lo"
}

// processEnv returns the environment of a replica's process: environ
// (this machine's, for PATH and HOME), then the container's, then the
// cluster's (TF_CONFIG...), each replacing what came before, as
// tfsupervisor replaces TF_CONFIG in the pod.
func processEnv(environ []string, container *envList, vars []cluster.EnvVar) []string {
	env := &envList{}
	for _, kv := range environ {
		if name, value, ok := strings.Cut(kv, "="); ok && name != "" {
			env.set(name, value)
		}
	}
	for _, n := range container.names {
		env.set(n, container.vals[n])
	}
	for _, v := range vars {
		env.set(v.Name, v.Value)
	}
	return env.strings()
}

// expand replaces each $(NAME) in s with lookup(NAME), as the kubelet
// expands env values, command and args: $$ is a literal $, and a reference
// to an unknown name is left as written.
func expand(s string, lookup func(string) (string, bool)) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				b.WriteString(s[i:])
				return b.String()
			}
			ref := s[i : i+3+end]
			if v, ok := lookup(s[i+2 : i+2+end]); ok {
				ref = v
			}
			b.WriteString(ref)
			i += 2 + end
		default:
			b.WriteByte('$')
		}
	}
	return b.String()
}
