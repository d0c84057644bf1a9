package cluster

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// Frameworks understood by Env.
const (
	TensorFlow = "tensorflow"
	MXNet      = "mxnet"
)

// Default ports (Kubeflow's tfjob-port and mxjob-port).
const (
	DefaultTFPort int32 = 2222
	DefaultMXPort int32 = 9091
)

// Role is one replica type of a job.
type Role struct {
	// Type is the lowercase replica type: chief, worker, ps, scheduler...
	Type string
	// Replicas is the number of replicas of this type.
	Replicas int32
	// Port the replicas listen on.
	Port int32
	// Label of an MXTune role (MX_CONFIG "labels").
	Label string
}

// Layout is everything about a job that decides its replicas' environment.
type Layout struct {
	// Job is the job's name; replica i of type t is pod Job-t-i in service Job-t.
	Job string
	// Framework is TensorFlow or MXNet.
	Framework string
	// Roles sorted by Type.
	Roles []Role
	// ClusterDomain, when set, is appended to every address (".svc.DOMAIN").
	ClusterDomain string
	// ExcludeEvaluator leaves the evaluator out of TF_CONFIG's cluster.
	ExcludeEvaluator bool
	// Sparse gives workers the sparse TF_CONFIG of dynamic workers.
	Sparse bool
	// Addresses, when set, replaces DNS naming: Addresses[type][i] is the
	// host:port of replica i (used by `tfgen run` on localhost).
	Addresses map[string][]string
}

// Scaled returns the layout with the replica counts of counts (by
// lowercase type) in place of its own; l itself is left as it was.
func (l *Layout) Scaled(counts map[string]int32) *Layout {
	if len(counts) == 0 {
		return l
	}
	c := *l
	c.Roles = make([]Role, len(l.Roles))
	for i, r := range l.Roles {
		if n, ok := counts[r.Type]; ok {
			r.Replicas = n
		}
		c.Roles[i] = r
	}
	return &c
}

// Role returns the role of type t.
func (l *Layout) Role(t string) (Role, bool) {
	for _, r := range l.Roles {
		if r.Type == t {
			return r, true
		}
	}
	return Role{}, false
}

// Total returns the number of replicas in the job.
func (l *Layout) Total() int64 {
	var n int64
	for _, r := range l.Roles {
		n += int64(r.Replicas)
	}
	return n
}

// Service returns the name of the headless Service of type t's replicas.
func (l *Layout) Service(t string) string { return l.Job + "-" + t }

// PortName is the name of the Services' port: Kubeflow's tfjob-port, or
// mxjob-port for MXNet.
func (l *Layout) PortName() string {
	if l.Framework == MXNet {
		return "mxjob-port"
	}
	return "tfjob-port"
}

// Host returns the DNS name of replica i of type t in namespace ns.
func (l *Layout) Host(t string, i int32, ns string) string {
	if l.Addresses != nil {
		host, _, _ := strings.Cut(l.address(t, i, ns), ":")
		return host
	}
	svc := l.Service(t)
	host := svc + "-" + strconv.Itoa(int(i)) + "." + svc + "." + ns + ".svc"
	if l.ClusterDomain != "" {
		host += "." + l.ClusterDomain
	}
	return host
}

func (l *Layout) address(t string, i int32, ns string) string {
	if l.Addresses != nil {
		if a := l.Addresses[t]; int(i) < len(a) {
			return a[i]
		}
		return ""
	}
	r, _ := l.Role(t)
	return l.Host(t, i, ns) + ":" + strconv.Itoa(int(r.Port))
}

// port is the port of replica i of type t: its role's, or the one in its
// address when Addresses is set.
func (l *Layout) port(t string, i int32) int32 {
	r, _ := l.Role(t)
	if l.Addresses == nil {
		return r.Port
	}
	_, p, _ := strings.Cut(l.address(t, i, ""), ":")
	n, err := strconv.ParseInt(p, 10, 32)
	if err != nil {
		return r.Port
	}
	return int32(n)
}

// labelEscaper percent-encodes what would end a label early in the roles
// form: the comma between roles, and the percent sign itself.
var labelEscaper = strings.NewReplacer("%", "%25", ",", "%2C")

// EncodeRoles writes roles in the compact flag form
// "type:replicas:port[:label],..." that ParseRoles reads. A label is
// percent-encoded ("%" and "," only), so that it is data whatever it holds.
func EncodeRoles(roles []Role) string {
	parts := make([]string, len(roles))
	for i, r := range roles {
		parts[i] = fmt.Sprintf("%s:%d:%d", r.Type, r.Replicas, r.Port)
		if r.Label != "" {
			parts[i] += ":" + labelEscaper.Replace(r.Label)
		}
	}
	return strings.Join(parts, ",")
}

// ParseRoles reads the form written by EncodeRoles and returns the roles
// sorted by type.
func ParseRoles(s string) ([]Role, error) {
	var roles []Role
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		if part == "" {
			continue
		}
		f := strings.SplitN(part, ":", 4)
		if len(f) < 3 {
			return nil, fmt.Errorf("role %q: want type:replicas:port[:label]", part)
		}
		n, err := strconv.ParseInt(f[1], 10, 32)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("role %q: replicas must be a whole number >= 0", part)
		}
		p, err := strconv.ParseInt(f[2], 10, 32)
		if err != nil || p < 1 || p > 65535 {
			return nil, fmt.Errorf("role %q: port must be 1-65535", part)
		}
		if f[0] == "" || seen[f[0]] {
			return nil, fmt.Errorf("role %q: empty or repeated type", part)
		}
		seen[f[0]] = true
		r := Role{Type: f[0], Replicas: int32(n), Port: int32(p)}
		if len(f) == 4 {
			if r.Label, err = url.PathUnescape(f[3]); err != nil {
				return nil, fmt.Errorf("role %q: label: %w", part, err)
			}
		}
		roles = append(roles, r)
	}
	if len(roles) == 0 {
		return nil, fmt.Errorf("no roles in %q", s)
	}
	sort.Slice(roles, func(a, b int) bool { return roles[a].Type < roles[b].Type })
	return roles, nil
}

// Ordinal returns the index at the end of a StatefulSet pod name ("j-worker-3" is 3).
func Ordinal(podName string) (int32, error) {
	i := strings.LastIndexByte(podName, '-')
	if i < 0 {
		return 0, fmt.Errorf("pod name %q has no ordinal suffix", podName)
	}
	n, err := strconv.ParseInt(podName[i+1:], 10, 32)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("pod name %q has no ordinal suffix", podName)
	}
	return int32(n), nil
}
