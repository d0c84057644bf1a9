package render

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/internal/jobgen"
	"github.com/tfgen/tfgen/pkg/dialect"
	"github.com/tfgen/tfgen/pkg/input"
	"github.com/tfgen/tfgen/pkg/job"
	"github.com/tfgen/tfgen/templates"
)

// slowRenderer returns a renderer that runs text/template only.
func slowRenderer(t testing.TB) *Renderer {
	t.Helper()
	r := newRenderer(t)
	r.fast = nil
	return r
}

// sameRender renders j with s for c on the fast path (r) and with
// text/template alone (slow): the objects or the errors must be the same.
func sameRender(t *testing.T, r, slow *Renderer, j *job.Job, s job.Settings, c Capabilities) error {
	t.Helper()
	want, wantErr := slow.Render(j, s, c)
	got, err := r.Render(j, s, c)
	if (wantErr == nil) != (err == nil) || wantErr != nil && wantErr.Error() != err.Error() {
		t.Fatalf("job %s: error %v, text/template's %v", j.Name, err, wantErr)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("job %s: objects (-text/template +fast):\n%s", j.Name, diff)
	}
	return err
}

// inputJobs returns the valid jobs of the examples, the error cases and
// test/e2e's generator.
func inputJobs(t *testing.T) []*job.Job {
	var jobs []*job.Job
	add := func(name string, b []byte) {
		docs, _ := input.Split(name, b)
		for _, doc := range docs {
			if res, err := dialect.Decode(doc, dialect.Options{}); err == nil && res.Job != nil {
				jobs = append(jobs, res.Job)
			}
		}
	}
	for _, pattern := range []string{"../../examples/*.yaml", "../../examples/*/*.yaml", "../../testdata/errors/*.yaml", "../../testdata/*/*.yaml"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			add(f, b)
		}
	}
	gen := jobgen.New(7)
	for range 60 {
		add("gen.yaml", gen.Next().YAML)
	}
	return jobs
}

// TestFastPathSameOutput renders every job of the examples, the error
// cases and generated jobs, with several settings, on the fast path and
// with text/template alone: byte for byte the same objects, the same
// errors. The jobs that render take the fast path all the way.
func TestFastPathSameOutput(t *testing.T) {
	r, slow := newRenderer(t), slowRenderer(t)
	jobs := inputJobs(t)
	if len(jobs) < 100 {
		t.Fatalf("only %d jobs to compare", len(jobs))
	}
	variants := []func(*job.Settings, *Capabilities){
		func(*job.Settings, *Capabilities) {},
		func(_ *job.Settings, c *Capabilities) { c.KubeVersion = "1.34" },
		func(_ *job.Settings, c *Capabilities) { c.KubeVersion = "1.35" },
		func(_ *job.Settings, c *Capabilities) { c.KubeVersion = "1.28" },
		// The values' tfgen.kubeVersion wins over the cluster's.
		func(s *job.Settings, c *Capabilities) { s.KubeVersion = "1.34"; c.KubeVersion = "1.37" },
		func(s *job.Settings, c *Capabilities) { s.KubeVersion = "1.37"; c.KubeVersion = "1.34" },
		func(s *job.Settings, _ *Capabilities) { s.ClusterDomain = "cluster.local"; s.ExcludeEvaluator = true },
		func(s *job.Settings, _ *Capabilities) {
			s.Accelerators = map[string]job.Accelerator{"nvidia.com/gpu": {
				Volumes: []job.AcceleratorVolume{{Name: "nvidia-libraries", HostPath: "/usr/lib/nvidia", MountPath: "/usr/local/nvidia/lib64"}},
				EnvVars: []job.EnvVar{{Name: "LD_LIBRARY_PATH", Value: "/usr/local/nvidia/lib64"}},
			}}
		},
	}
	rendered := 0
	for _, j := range jobs {
		for _, v := range variants {
			s, c := settings(), newest
			v(&s, &c)
			before := r.fallbacks.Load()
			if err := sameRender(t, r, slow, j, s, c); err == nil {
				rendered++
				if n := r.fallbacks.Load() - before; n > 0 {
					t.Errorf("job %s: %d templates left the fast path", j.Name, n)
				}
			}
		}
	}
	t.Logf("%d jobs, %d renders compared", len(jobs), rendered)
}

// FuzzFastPath compares the fast path with text/template on arbitrary
// documents, seeded as FuzzRender.
func FuzzFastPath(f *testing.F) {
	for _, pattern := range []string{"../../examples/*.yaml", "../../testdata/errors/*.yaml"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	gen := jobgen.New(3)
	for range 30 {
		f.Add(gen.Next().YAML)
	}
	r, err := New(templates.FS)
	if err != nil {
		f.Fatal(err)
	}
	slow, _ := New(templates.FS)
	slow.fast = nil
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, _ := input.Split("fuzz.yaml", data)
		for _, doc := range docs {
			res, err := dialect.Decode(doc, dialect.Options{})
			if err != nil || res.Job == nil {
				continue
			}
			sameRender(t, r, slow, res.Job, settings(), newest)
		}
	})
}

// TestRenderConcurrently renders from several goroutines with one
// Renderer (its fast path shares pools and caches): the same objects as
// one at a time.
func TestRenderConcurrently(t *testing.T) {
	r := newRenderer(t)
	want, err := r.Render(mnist(), settings(), newest)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			for range 20 {
				got, err := r.Render(mnist(), settings(), newest)
				if err == nil && !cmp.Equal(want, got) {
					err = fmt.Errorf("objects differ:\n%s", cmp.Diff(want, got))
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
