package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/job"
)

// TestLargeSparseJob: with enableDynamicWorker a worker's TF_CONFIG lists
// the parameter servers and itself only, so thousands of workers with no
// (or few) parameter servers render, in wrap and in sidecar mode; only
// the parameter servers can make it too large.
func TestLargeSparseJob(t *testing.T) {
	const workers = 5000
	for _, tc := range []struct {
		name    string
		command []string
		ps      int32
		want    string // "" for success
	}{
		{name: "no PS, wrap mode", command: []string{"python"}},
		{name: "no PS, sidecar mode"},
		{name: "two PS, sidecar mode", ps: 2},
		{name: "too many PS", command: []string{"python"}, ps: 4500,
			want: "the sparse form of enableDynamicWorker lists every parameter server; use fewer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			big := testjob.New("big").DynamicWorkers().Replica(job.Worker, workers, testjob.Command(tc.command...))
			if tc.ps > 0 {
				big.Replica(job.PS, tc.ps, testjob.Command(tc.command...))
			}
			out, stderr := run(t, cmdCase{args: []string{"render", "-f", "-"}, stdin: big.String(), wantErr: tc.want != ""})
			if tc.want != "" {
				if !strings.Contains(string(stderr), tc.want) || strings.Contains(string(stderr), "set enableDynamicWorker: true") {
					t.Errorf("stderr:\n%s\nwant %q", stderr, tc.want)
				}
				return
			}
			if !strings.Contains(string(out), fmt.Sprintf("replicas: %d\n", workers)) {
				t.Errorf("no StatefulSet of %d workers in:\n%.3000s", workers, out)
			}
			if len(out) > 64<<10 {
				t.Errorf("output of %d bytes: the sparse TF_CONFIG should not grow with the workers", len(out))
			}
		})
	}
}

// TestSizeLimits: annotations over 256 KiB and a record ConfigMap over its
// room are refused when rendering, not when applying.
func TestSizeLimits(t *testing.T) {
	worker := func(name, big string) *testjob.Builder {
		return testjob.New(name).Replica(job.Worker, 1, testjob.Command("python"), testjob.Env("BIG", big))
	}
	for _, tc := range []struct {
		name string
		job  *testjob.Builder
		want string
	}{
		{name: "annotations",
			job:  worker("notes", "x").Annotation("note", strings.Repeat("n", 256<<10)),
			want: "<stdin>: TFJob notes: metadata.annotations: Too long: may not be more than 262144 bytes"},
		{name: "record",
			job:  worker("record", strings.Repeat("v", 1<<20)),
			want: "<stdin>: TFJob record: spec: Too long: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr := run(t, cmdCase{args: []string{"render", "-f", "-"}, stdin: tc.job.String(), wantErr: true})
			lines := strings.Split(strings.TrimSpace(string(stderr)), "\n")
			if len(lines) != 2 || !strings.HasPrefix(lines[0], tc.want) {
				t.Errorf("stderr:\n%.2000s\nwant one problem starting %q", stderr, tc.want)
			}
		})
	}
}
