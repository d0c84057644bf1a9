package cluster

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// MaxEnvString is the kernel's limit for one "NAME=value" environment string
// (MAX_ARG_STRLEN, 32 pages), terminating NUL included.
const MaxEnvString = 128 * 1024

// EnvVar is one environment variable.
type EnvVar struct {
	Name  string
	Value string
}

// Env returns the environment of replica index of type t in namespace ns:
// TF_CONFIG for TensorFlow (none when the job has a single replica), or
// MX_CONFIG and DMLC_* for MXNet.
func (l *Layout) Env(t string, index int32, ns string) ([]EnvVar, error) {
	r, ok := l.Role(t)
	if !ok {
		return nil, fmt.Errorf("job %s has no replica type %q", l.Job, t)
	}
	if index < 0 || index >= r.Replicas {
		return nil, fmt.Errorf("replica %s-%d: index out of range (job %s has %d)", t, index, l.Job, r.Replicas)
	}
	var env []EnvVar
	var err error
	switch l.Framework {
	case TensorFlow, "":
		env, err = l.tfEnv(t, index, ns)
	case MXNet:
		env, err = l.mxEnv(t, index, ns)
	default:
		return nil, fmt.Errorf("unknown framework %q", l.Framework)
	}
	if err != nil {
		return nil, err
	}
	for _, e := range env {
		if n := len(e.Name) + 1 + len(e.Value) + 1; n > MaxEnvString {
			return nil, fmt.Errorf("%s for replica %s-%d is %d bytes, over the kernel's %d-byte limit for one environment variable; "+
				"set enableDynamicWorker: true so each worker gets the sparse form (itself and the parameter servers only)",
				e.Name, t, index, n, MaxEnvString)
		}
	}
	return env, nil
}

// EnvNames returns the names of the variables Env sets for a replica of
// type t, without building their values.
func (l *Layout) EnvNames(t string) []string {
	if l.Framework == MXNet {
		names := []string{"MX_CONFIG"}
		if _, ok := l.Role("scheduler"); ok {
			names = append(names, "DMLC_PS_ROOT_URI", "DMLC_PS_ROOT_PORT", "DMLC_NUM_SERVER", "DMLC_NUM_WORKER", "DMLC_ROLE", "DMLC_USE_KUBERNETES")
			if t == "worker" {
				names = append(names, "DMLC_WORKER_ID")
			}
		}
		return names
	}
	if l.Total() > 1 {
		return []string{"TF_CONFIG"}
	}
	return nil
}

// TaskSpec is TF_CONFIG's "task".
type TaskSpec struct {
	Type  string `json:"type"`
	Index int32  `json:"index"`
}

type tfConfig struct {
	Cluster     any      `json:"cluster"`
	Task        TaskSpec `json:"task"`
	Environment string   `json:"environment"`
}

type sparseCluster struct {
	Worker map[string]string `json:"worker"`
	PS     []string          `json:"ps"`
}

func (l *Layout) tfEnv(t string, index int32, ns string) ([]EnvVar, error) {
	if l.Total() <= 1 {
		return nil, nil
	}
	cfg := tfConfig{Task: TaskSpec{Type: t, Index: index}, Environment: "cloud"}
	if l.Sparse {
		cfg.Cluster = l.sparse(t, index, ns)
	} else {
		cfg.Cluster = l.dense(ns)
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	return []EnvVar{{Name: "TF_CONFIG", Value: string(b)}}, nil
}

func (l *Layout) dense(ns string) map[string][]string {
	c := make(map[string][]string, len(l.Roles))
	for _, r := range l.Roles {
		if r.Type == "evaluator" && l.ExcludeEvaluator {
			continue
		}
		c[r.Type] = l.addresses(r, ns)
	}
	return c
}

// sparse follows Kubeflow's dynamic-worker form: a worker sees every
// parameter server and only itself; a parameter server sees only itself.
func (l *Layout) sparse(t string, index int32, ns string) sparseCluster {
	c := sparseCluster{Worker: map[string]string{}, PS: []string{}}
	switch t {
	case "ps":
		c.PS = append(c.PS, l.address(t, index, ns))
	case "worker":
		if ps, ok := l.Role("ps"); ok {
			c.PS = l.addresses(ps, ns)
		}
		c.Worker[strconv.Itoa(int(index))] = l.address(t, index, ns)
	}
	return c
}

func (l *Layout) addresses(r Role, ns string) []string {
	a := make([]string, r.Replicas)
	for i := range a {
		a[i] = l.address(r.Type, int32(i), ns)
	}
	return a
}

type urlPort struct {
	URL  string `json:"url"`
	Port int32  `json:"port"`
}

type mxConfig struct {
	Cluster map[string][]urlPort `json:"cluster"`
	Labels  map[string]string    `json:"labels"`
	Task    TaskSpec             `json:"task"`
}

func (l *Layout) mxEnv(t string, index int32, ns string) ([]EnvVar, error) {
	cfg := mxConfig{Cluster: map[string][]urlPort{}, Labels: map[string]string{}, Task: TaskSpec{Type: t, Index: index}}
	for _, r := range l.Roles {
		ups := make([]urlPort, r.Replicas)
		for i := range ups {
			ups[i] = urlPort{URL: l.Host(r.Type, int32(i), ns), Port: l.port(r.Type, int32(i))}
		}
		cfg.Cluster[r.Type] = ups
		cfg.Labels[r.Type] = r.Label
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	env := []EnvVar{{Name: "MX_CONFIG", Value: string(b)}}
	sched, ok := l.Role("scheduler")
	if !ok {
		return env, nil
	}
	count := func(t string) string {
		r, _ := l.Role(t)
		return strconv.Itoa(int(r.Replicas))
	}
	env = append(env,
		EnvVar{"DMLC_PS_ROOT_URI", l.Host("scheduler", 0, ns)},
		EnvVar{"DMLC_PS_ROOT_PORT", strconv.Itoa(int(l.port(sched.Type, 0)))},
		EnvVar{"DMLC_NUM_SERVER", count("server")},
		EnvVar{"DMLC_NUM_WORKER", count("worker")},
		EnvVar{"DMLC_ROLE", t},
		EnvVar{"DMLC_USE_KUBERNETES", "1"},
	)
	if t == "worker" {
		env = append(env, EnvVar{"DMLC_WORKER_ID", strconv.Itoa(int(index))})
	}
	return env, nil
}
