package cli

import (
	"fmt"
	"strings"
	"testing"
)

func tfjob(name, spec string) string {
	return "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: " + name + "}\nspec:\n" + spec
}

// TestLargeSparseJob: with enableDynamicWorker a worker's TF_CONFIG lists
// the parameter servers and itself only, so thousands of workers with no
// (or few) parameter servers render, in wrap and in sidecar mode; only
// the parameter servers can make it too large.
func TestLargeSparseJob(t *testing.T) {
	const workers = 5000
	for _, tc := range []struct {
		name, command string
		ps            int
		want          string // "" for success
	}{
		{name: "no PS, wrap mode", command: "command: [python]"},
		{name: "no PS, sidecar mode"},
		{name: "two PS, sidecar mode", ps: 2},
		{name: "too many PS", command: "command: [python]", ps: 4500,
			want: "the sparse form of enableDynamicWorker lists every parameter server; use fewer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := "{spec: {containers: [{name: tensorflow, image: tf:1, " + tc.command + "}]}}"
			spec := fmt.Sprintf("  enableDynamicWorker: true\n  tfReplicaSpecs:\n    Worker: {replicas: %d, template: %s}\n", workers, pod)
			if tc.ps > 0 {
				spec += fmt.Sprintf("    PS: {replicas: %d, template: %s}\n", tc.ps, pod)
			}
			out, stderr := run(t, cmdCase{args: []string{"render", "-f", "-"}, stdin: tfjob("big", spec), wantErr: tc.want != ""})
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
	worker := "  tfReplicaSpecs:\n    Worker: {template: {spec: {containers: [{name: tensorflow, image: tf:1, command: [python], env: [{name: BIG, value: %s}]}]}}}\n"
	for _, tc := range []struct {
		name, job, want string
	}{
		{name: "annotations",
			job:  strings.Replace(tfjob("notes", fmt.Sprintf(worker, "x")), "{name: notes}", "{name: notes, annotations: {note: "+strings.Repeat("n", 256<<10)+"}}", 1),
			want: "<stdin>: TFJob notes: metadata.annotations: Too long: may not be more than 262144 bytes"},
		{name: "record",
			job:  tfjob("record", fmt.Sprintf(worker, strings.Repeat("v", 1<<20))),
			want: "<stdin>: TFJob record: spec: Too long: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr := run(t, cmdCase{args: []string{"render", "-f", "-"}, stdin: tc.job, wantErr: true})
			lines := strings.Split(strings.TrimSpace(string(stderr)), "\n")
			if len(lines) != 2 || !strings.HasPrefix(lines[0], tc.want) {
				t.Errorf("stderr:\n%.2000s\nwant one problem starting %q", stderr, tc.want)
			}
		})
	}
}
