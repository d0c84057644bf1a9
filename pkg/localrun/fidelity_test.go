//go:build unix

package localrun

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tfgen/tfgen/pkg/dialect"
	"github.com/tfgen/tfgen/pkg/input"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/pkg/render"
	"github.com/tfgen/tfgen/pkg/supervise"
	tfsupervisor "github.com/tfgen/tfgen/pkg/supervise/cli"
	"github.com/tfgen/tfgen/templates"
)

// TestSameSupervision: every replica of a local run is supervised with the
// configuration tfsupervisor builds in its pod from the flags tfgen render
// gives it (at the newest Kubernetes, with the image volume), but for the
// addresses in the layout.
func TestSameSupervision(t *testing.T) {
	r, err := render.New(templates.FS)
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"testdata/outcome.yaml"}
	for _, example := range []string{"local-demo", "tfjob-mnist", "t9k-mnist", "mxjob-linear", "tfjob-dragon", "tfjob-mlkube"} {
		files = append(files, "../../examples/"+example+".yaml")
	}
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			docs, err := input.Read([]string{file}, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := dialect.Decode(docs[0], dialect.Options{})
			if err != nil {
				t.Fatal(err)
			}
			j := res.Job
			objs, err := r.Render(j, job.Settings{SupervisorImage: "tfsupervisor:test"}, render.Capabilities{KubeVersion: "1.37"})
			if err != nil {
				t.Fatal(err)
			}
			flags := map[string][]string{} // per StatefulSet
			for _, o := range objs {
				if o.Kind() == "StatefulSet" && o.Name() != j.Name+"-keeper" {
					f, ok := runFlags(o)
					if !ok {
						t.Fatalf("StatefulSet %s: no wrapped training container", o.Name())
					}
					flags[o.Name()] = f
				}
			}
			// The examples run python, which this machine need not have.
			found := func(file string) (string, error) { return file, nil }
			p, err := NewPlan(j, PlanOptions{Ports: ports, Environ: []string{}, LookPath: found})
			if err != nil {
				t.Fatal(err)
			}
			ns := j.Namespace
			if ns == "" {
				ns = "default"
			}
			for _, rep := range p.Replicas {
				f, ok := flags[j.Name+"-"+rep.Ref.Type]
				if !ok {
					t.Fatalf("%s: no StatefulSet %s-%s", rep.Ref, j.Name, rep.Ref.Type)
				}
				want, err := tfsupervisor.ParseConfig(f, rep.Config.Pod, ns)
				if err != nil {
					t.Fatalf("%s: %v", rep.Ref, err)
				}
				if diff := cmp.Diff(want, rep.Config, cmpopts.IgnoreFields(supervise.Config{}, "Logf"), cmpopts.IgnoreFields(supervise.Job{}, "Layout")); diff != "" {
					t.Errorf("%s: config (-tfsupervisor +tfgen run):\n%s", rep.Ref, diff)
				}
				local := *rep.Config.Job.Layout
				local.Addresses = nil
				if diff := cmp.Diff(want.Job.Layout, &local); diff != "" {
					t.Errorf("%s: layout (-tfsupervisor +tfgen run):\n%s", rep.Ref, diff)
				}
			}
		})
	}
}
