package operate_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/cli"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/operate"
)

// render returns the StatefulSets `tfgen render` makes of job, by name.
// render renders job with flags: its replica types' StatefulSets, by name.
func render(t *testing.T, job string, flags ...string) map[string]*appsv1.StatefulSet {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := cli.NewRootCmd(cli.Streams{In: strings.NewReader(job), Out: &out, ErrOut: &errOut})
	cmd.SetArgs(append([]string{"render", "-f", "-", "--format", "json"}, flags...))
	if err := cmd.Execute(); err != nil {
		t.Fatalf("render: %v\n%s", err, errOut.String())
	}
	var list struct{ Items []json.RawMessage }
	if err := json.Unmarshal(out.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	sets := map[string]*appsv1.StatefulSet{}
	for _, raw := range list.Items {
		s := &appsv1.StatefulSet{}
		if err := json.Unmarshal(raw, s); err != nil {
			t.Fatal(err)
		}
		// The keeper's StatefulSet is not rescaled: it takes the layout
		// from the job's status.
		if s.Kind == "StatefulSet" && s.Labels[operate.LabelReplicaType] != "" {
			sets[s.Name] = s
		}
	}
	if len(sets) == 0 {
		t.Fatalf("no StatefulSets in:\n%s", out.String())
	}
	return sets
}

// jobYAML is a TFJob (or MXJob when mx) with 2 PS, a chief and the given
// workers; sidecar leaves the training container's command out.
func jobYAML(workers int32, mx, sidecar, dynamic bool) string {
	b, types := testjob.New("j"), []job.ReplicaType{job.PS, job.Chief, job.Worker}
	if mx {
		b, types = testjob.NewMX("j"), []job.ReplicaType{job.Scheduler, job.Server, job.Worker}
	}
	b.Namespace("team")
	if dynamic {
		b.DynamicWorkers()
	}
	opts := []testjob.Option{testjob.Image("img:1")}
	if !sidecar {
		opts = append(opts, testjob.Command("python", "train.py"))
	}
	for _, typ := range types {
		n := int32(1)
		switch typ {
		case job.Worker:
			n = workers
		case job.PS, job.Server:
			n = 2
		}
		b.Replica(typ, n, opts...)
	}
	return b.String()
}

// TestRescaleAgreesWithRender: rescaling a rendered job's pod templates
// gives what rendering it with the new worker count gives.
func TestRescaleAgreesWithRender(t *testing.T) {
	cases := []struct {
		name                 string
		mx, sidecar, dynamic bool
		flags                []string
		// earlier: as an earlier tfgen rendered it, with $(POD_NAMESPACE)
		// where $(TFGEN_POD_NAMESPACE) is now.
		earlier bool
	}{
		{name: "tensorflow wrap"},
		{name: "tensorflow sidecar", sidecar: true},
		{name: "tensorflow sidecar dynamic workers", sidecar: true, dynamic: true},
		{name: "tensorflow sidecar cluster domain", sidecar: true, flags: []string{"--cluster-domain", "cluster.local"}},
		{name: "mxnet wrap", mx: true},
		{name: "mxnet sidecar", mx: true, sidecar: true},
		{name: "tensorflow sidecar rendered by an earlier tfgen", sidecar: true, earlier: true},
		{name: "mxnet sidecar rendered by an earlier tfgen", mx: true, sidecar: true, earlier: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, move := range [][2]int32{{3, 5}, {3, 1}, {4, 0}} {
				got := render(t, jobYAML(move[0], tc.mx, tc.sidecar, tc.dynamic), tc.flags...)
				want := render(t, jobYAML(move[1], tc.mx, tc.sidecar, tc.dynamic), tc.flags...)
				if tc.earlier {
					earlierNames(got)
					earlierNames(want)
				}
				for name, s := range got {
					changed, err := operate.Rescale(&s.Spec.Template.Spec, "worker", move[1])
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if !changed {
						t.Errorf("%s %d→%d: nothing changed", name, move[0], move[1])
					}
					if diff := cmp.Diff(want[name].Spec.Template, s.Spec.Template); diff != "" {
						t.Errorf("%s %d→%d: pod template (-render +rescale):\n%s", name, move[0], move[1], diff)
					}
				}
			}
		})
	}
}

// earlierNames makes sets' env values refer to the namespace as tfgen
// rendered them before TFGEN_POD_NAMESPACE.
func earlierNames(sets map[string]*appsv1.StatefulSet) {
	for _, s := range sets {
		for ci := range s.Spec.Template.Spec.Containers {
			env := s.Spec.Template.Spec.Containers[ci].Env
			for i := range env {
				env[i].Value = strings.ReplaceAll(env[i].Value, "$(TFGEN_POD_NAMESPACE)", "$(POD_NAMESPACE)")
			}
		}
	}
}

// TestRescaleRefuses: a template changed by hand, or a type the job does
// not have, is refused rather than half rewritten.
func TestRescaleRefuses(t *testing.T) {
	sets := render(t, jobYAML(3, false, true, false))
	s := sets["j-ps"]
	env := s.Spec.Template.Spec.Containers[0].Env
	for i := range env {
		if env[i].Name == "TF_CONFIG" {
			env[i].Value = strings.Replace(env[i].Value, "j-worker-2.", "elsewhere-2.", 1)
		}
	}
	if _, err := operate.Rescale(&s.Spec.Template.Spec, "worker", 5); err == nil || !strings.Contains(err.Error(), "changed by hand") {
		t.Errorf("edited TF_CONFIG: got %v, want an error saying it was changed by hand", err)
	}
	s = sets["j-worker"]
	if _, err := operate.Rescale(&s.Spec.Template.Spec, "evaluator", 5); err == nil || !strings.Contains(err.Error(), "no type evaluator") {
		t.Errorf("unknown type: got %v", err)
	}
}
