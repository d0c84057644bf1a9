package cluster

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func tfLayout() *Layout {
	return &Layout{Job: "j", Framework: TensorFlow, Roles: []Role{
		{Type: "evaluator", Replicas: 1, Port: 2222},
		{Type: "ps", Replicas: 1, Port: 2222},
		{Type: "worker", Replicas: 2, Port: 2222},
	}}
}

func TestEnv(t *testing.T) {
	tests := []struct {
		name   string
		layout func() *Layout
		typ    string
		index  int32
		want   []EnvVar
	}{{
		name: "dense with evaluator", layout: tfLayout, typ: "worker", index: 1,
		want: []EnvVar{{"TF_CONFIG", `{"cluster":{"evaluator":["j-evaluator-0.j-evaluator.ns.svc:2222"],"ps":["j-ps-0.j-ps.ns.svc:2222"],` +
			`"worker":["j-worker-0.j-worker.ns.svc:2222","j-worker-1.j-worker.ns.svc:2222"]},"task":{"type":"worker","index":1},"environment":"cloud"}`}},
	}, {
		name: "evaluator excluded, cluster domain",
		layout: func() *Layout {
			l := tfLayout()
			l.ExcludeEvaluator, l.ClusterDomain = true, "cluster.local"
			return l
		},
		typ: "evaluator", index: 0,
		want: []EnvVar{{"TF_CONFIG", `{"cluster":{"ps":["j-ps-0.j-ps.ns.svc.cluster.local:2222"],` +
			`"worker":["j-worker-0.j-worker.ns.svc.cluster.local:2222","j-worker-1.j-worker.ns.svc.cluster.local:2222"]},"task":{"type":"evaluator","index":0},"environment":"cloud"}`}},
	}, {
		name:   "sparse worker",
		layout: func() *Layout { l := tfLayout(); l.Sparse = true; return l },
		typ:    "worker", index: 1,
		want: []EnvVar{{"TF_CONFIG", `{"cluster":{"worker":{"1":"j-worker-1.j-worker.ns.svc:2222"},"ps":["j-ps-0.j-ps.ns.svc:2222"]},"task":{"type":"worker","index":1},"environment":"cloud"}`}},
	}, {
		name: "single replica has no TF_CONFIG",
		layout: func() *Layout {
			return &Layout{Job: "j", Roles: []Role{{Type: "worker", Replicas: 1, Port: 2222}}}
		},
		typ: "worker", index: 0, want: nil,
	}, {
		name: "mxnet worker",
		layout: func() *Layout {
			return &Layout{Job: "m", Framework: MXNet, Roles: []Role{
				{Type: "scheduler", Replicas: 1, Port: 9091}, {Type: "server", Replicas: 2, Port: 9091}, {Type: "worker", Replicas: 3, Port: 9091}}}
		},
		typ: "worker", index: 2,
		want: []EnvVar{
			{"MX_CONFIG", `{"cluster":{"scheduler":[{"url":"m-scheduler-0.m-scheduler.ns.svc","port":9091}],"server":[{"url":"m-server-0.m-server.ns.svc","port":9091},{"url":"m-server-1.m-server.ns.svc","port":9091}],` +
				`"worker":[{"url":"m-worker-0.m-worker.ns.svc","port":9091},{"url":"m-worker-1.m-worker.ns.svc","port":9091},{"url":"m-worker-2.m-worker.ns.svc","port":9091}]},` +
				`"labels":{"scheduler":"","server":"","worker":""},"task":{"type":"worker","index":2}}`},
			{"DMLC_PS_ROOT_URI", "m-scheduler-0.m-scheduler.ns.svc"}, {"DMLC_PS_ROOT_PORT", "9091"},
			{"DMLC_NUM_SERVER", "2"}, {"DMLC_NUM_WORKER", "3"}, {"DMLC_ROLE", "worker"},
			{"DMLC_USE_KUBERNETES", "1"}, {"DMLC_WORKER_ID", "2"},
		},
	}, {
		name: "tensorflow on localhost (tfgen run)",
		layout: func() *Layout {
			l := tfLayout()
			l.Addresses = map[string][]string{"evaluator": {"localhost:4000"}, "ps": {"localhost:4001"}, "worker": {"localhost:4002", "localhost:4003"}}
			return l
		},
		typ: "ps", index: 0,
		want: []EnvVar{{"TF_CONFIG", `{"cluster":{"evaluator":["localhost:4000"],"ps":["localhost:4001"],"worker":["localhost:4002","localhost:4003"]},"task":{"type":"ps","index":0},"environment":"cloud"}`}},
	}, {
		name: "mxnet on localhost: each replica's own port",
		layout: func() *Layout {
			return &Layout{Job: "m", Framework: MXNet, Roles: []Role{
				{Type: "scheduler", Replicas: 1, Port: 9091}, {Type: "server", Replicas: 1, Port: 9091}, {Type: "worker", Replicas: 2, Port: 9091}},
				Addresses: map[string][]string{"scheduler": {"localhost:5000"}, "server": {"localhost:5001"}, "worker": {"localhost:5002", "localhost:5003"}}}
		},
		typ: "server", index: 0,
		want: []EnvVar{
			{"MX_CONFIG", `{"cluster":{"scheduler":[{"url":"localhost","port":5000}],"server":[{"url":"localhost","port":5001}],` +
				`"worker":[{"url":"localhost","port":5002},{"url":"localhost","port":5003}]},"labels":{"scheduler":"","server":"","worker":""},"task":{"type":"server","index":0}}`},
			{"DMLC_PS_ROOT_URI", "localhost"}, {"DMLC_PS_ROOT_PORT", "5000"},
			{"DMLC_NUM_SERVER", "1"}, {"DMLC_NUM_WORKER", "2"}, {"DMLC_ROLE", "server"}, {"DMLC_USE_KUBERNETES", "1"},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.layout().Env(tt.typ, tt.index, "ns")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Env (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEnvTooLarge(t *testing.T) {
	l := &Layout{Job: "big", Roles: []Role{{Type: "worker", Replicas: 10000, Port: 2222}}}
	_, err := l.Env("worker", 0, "ns")
	if err == nil || !strings.Contains(err.Error(), "enableDynamicWorker") {
		t.Fatalf("want a size error suggesting the sparse form, got %v", err)
	}
	l.Sparse = true
	if _, err := l.Env("worker", 9999, "ns"); err != nil {
		t.Fatalf("sparse form: %v", err)
	}
}

func TestEnvErrors(t *testing.T) {
	l := tfLayout()
	for _, c := range []struct {
		typ   string
		index int32
	}{{"chief", 0}, {"worker", 2}, {"worker", -1}} {
		if _, err := l.Env(c.typ, c.index, "ns"); err == nil {
			t.Errorf("Env(%s, %d): want error", c.typ, c.index)
		}
	}
}

func TestRolesRoundTrip(t *testing.T) {
	roles := []Role{{Type: "ps", Replicas: 2, Port: 2222}, {Type: "tuner", Replicas: 1, Port: 9091, Label: "cpu,gpu:worker:9:1%2C%"}, {Type: "worker", Replicas: 3, Port: 2000}}
	got, err := ParseRoles(EncodeRoles(roles))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(roles, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"", "worker", "worker:x:1", "worker:1:0", "worker:1:2222,worker:2:2222", "worker:-1:2222"} {
		if _, err := ParseRoles(bad); err == nil {
			t.Errorf("ParseRoles(%q): want error", bad)
		}
	}
}

func TestOrdinal(t *testing.T) {
	if n, err := Ordinal("job-a-worker-12"); err != nil || n != 12 {
		t.Errorf("Ordinal = %d, %v", n, err)
	}
	for _, bad := range []string{"worker", "job-worker-x", "job-worker-"} {
		if _, err := Ordinal(bad); err == nil {
			t.Errorf("Ordinal(%q): want error", bad)
		}
	}
}

// FuzzRolesRoundTrip: whatever a label holds, --roles reads back as the
// roles written, with no role added or lost.
func FuzzRolesRoundTrip(f *testing.F) {
	f.Add("cpu", "worker")
	f.Add("a,b:c", "tuner")
	f.Add("%2C%", "x")
	f.Fuzz(func(t *testing.T, label, typ string) {
		if typ == "" || strings.ContainsAny(typ, ",:") || typ == "zz" {
			return // types are lowercase replica types, validated
		}
		roles := []Role{{Type: typ, Replicas: 1, Port: 2222, Label: label}, {Type: "zz", Replicas: 2, Port: 1}}
		if typ > "zz" {
			roles[0], roles[1] = roles[1], roles[0]
		}
		got, err := ParseRoles(EncodeRoles(roles))
		if err != nil {
			t.Fatalf("%q: %v", EncodeRoles(roles), err)
		}
		if diff := cmp.Diff(roles, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", EncodeRoles(roles), diff)
		}
	})
}
