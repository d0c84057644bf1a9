package validate_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/dialect"
	"github.com/tfgen/tfgen/pkg/input"
	"github.com/tfgen/tfgen/pkg/validate"
)

// problems returns every problem of one YAML document as tfgen reports
// them: conversion's, and validation's of what converted (as pkg/cli
// merges them), one line each.
func problems(t *testing.T, y string) []string {
	t.Helper()
	res, err := dialect.Decode(input.Document{File: "job.yaml", Line: 1, Raw: []byte(y)}, dialect.Options{})
	switch {
	case err != nil && res.Job != nil:
		err = dialect.MergeErrors(err, validate.Job(res.Job))
	case err == nil:
		err = dialect.JobError(res.Job, validate.Job(res.Job))
	}
	if err == nil {
		return nil
	}
	return strings.Split(err.Error(), "\n")
}

// TestProblemsOnce: every problem is reported once, as itself. Before, the
// training container's named port was checked both as the replica's port
// and as a container port: 70000 was reported twice, and 0 once as out of
// range and once as missing; and a value of the wrong type kept the job
// from validation, so that a negative GPU count beside `cpu: abc` went
// unreported.
func TestProblemsOnce(t *testing.T) {
	const c = "job.yaml: TFJob j: spec.tfReplicaSpecs[Worker].template.spec.containers[0]."
	tests := []struct {
		name, spec string
		want       []string
	}{
		{"the named port out of range", `containers: [{name: tensorflow, image: tf, ports: [{name: tfjob-port, containerPort: 70000}]}]`, []string{
			c + `ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive`,
		}},
		{"the named port 0", `containers: [{name: tensorflow, image: tf, ports: [{name: tfjob-port, containerPort: 0}]}]`, []string{
			c + `ports[0].containerPort: Invalid value: 0: must be between 1 and 65535, inclusive`,
		}},
		{"another port out of range", `containers: [{name: tensorflow, image: tf, ports: [{name: tfjob-port, containerPort: 2222}, {containerPort: 70000}]}]`, []string{
			c + `ports[1].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive`,
		}},
		{"a named port in another container", `containers: [{name: tensorflow, image: tf}, {name: side, image: s, ports: [{name: tfjob-port, containerPort: 70000}]}]`, []string{
			`job.yaml: TFJob j: spec.tfReplicaSpecs[Worker].template.spec.containers[1].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive`,
		}},
		{"a negative GPU count beside a quantity that is no number", `containers: [{name: tensorflow, image: tf, resources: {limits: {nvidia.com/gpu: -1, cpu: abc}}}]`, []string{
			c + `resources.limits[cpu]: Invalid value: "abc": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
			c + `resources.limits[nvidia.com/gpu]: Invalid value: "-1": must be greater than or equal to 0`,
		}},
		{"a negative GPU count beside a wrong type in another replica field", `containers: [{name: tensorflow, image: tf, args: [1], resources: {limits: {nvidia.com/gpu: -1}}}]`, []string{
			c + `args[0]: Invalid value: 1: must be a string`,
			c + `resources.limits[nvidia.com/gpu]: Invalid value: "-1": must be greater than or equal to 0`,
		}},
		{"a value left out is not then missing", `containers: [{name: tensorflow, image: tf, resources: {limits: {nvidia.com/gpu: abc}, requests: {nvidia.com/gpu: 1}}}]`, []string{
			c + `resources.limits[nvidia.com/gpu]: Invalid value: "abc": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
		}},
		{"a volume's name of the wrong type is not then missing from its mounts", "volumes: [{name: 5, emptyDir: {}}]\n" +
			`containers: [{name: tensorflow, image: tf, volumeMounts: [{name: "5", mountPath: /d}]}]`, []string{
			`job.yaml: TFJob j: spec.tfReplicaSpecs[Worker].template.spec.volumes[0].name: Invalid value: 5: must be a string`,
		}},
		{"the training container's name of the wrong type", `containers: [{name: 5, image: tf}]`, []string{
			c + `name: Invalid value: 5: must be a string`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, problems(t, podJob(tt.spec))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
