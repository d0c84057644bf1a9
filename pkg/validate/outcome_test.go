package validate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/validate"
)

// TestOutcomeChoices: successWorkers and tfgen's job annotations, each
// problem with its path.
func TestOutcomeChoices(t *testing.T) {
	const worker = "    Worker: {replicas: 4, template: {spec: {containers: [{name: tensorflow, image: tf, command: [train]}]}}}\n"
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"a count and a percentage are fine", "metadata: {name: j}\nspec:\n  successWorkers: 3\n  tfReplicaSpecs:\n" + worker, nil},
		{"50% is fine", "metadata: {name: j, annotations: {tfgen.io/restart-scope: Job, tfgen.io/evaluator-grace: 5m}}\nspec:\n  successWorkers: 50%\n  tfReplicaSpecs:\n" + worker, nil},
		{"out of range", "metadata: {name: j}\nspec:\n  successWorkers: 5\n  tfReplicaSpecs:\n" + worker,
			[]string{`spec.successWorkers: Invalid value: 5: must be a count from 1 to the number of workers (4), or a percentage such as "50%"`}},
		{"not a percentage", "metadata: {name: j}\nspec:\n  successWorkers: half\n  tfReplicaSpecs:\n" + worker,
			[]string{`spec.successWorkers: Invalid value: "half": must be a count of workers, or a percentage from "1%" to "100%"`}},
		{"with a chief", "metadata: {name: j}\nspec:\n  successWorkers: 2\n  tfReplicaSpecs:\n" + worker +
			"    Chief: {template: {spec: {containers: [{name: tensorflow, image: tf}]}}}\n",
			[]string{`spec.successWorkers: Forbidden: a job with a chief or master succeeds when it does; successWorkers is for jobs whose workers decide`}},
		{"with AllWorkers", "metadata: {name: j}\nspec:\n  successPolicy: AllWorkers\n  successWorkers: 2\n  tfReplicaSpecs:\n" + worker,
			[]string{`spec.successWorkers: Invalid value: "2": successPolicy AllWorkers already asks for every worker; set one of the two`}},
		{"annotations", "metadata: {name: j, annotations: {tfgen.io/restart-scope: Pod, tfgen.io/evaluator-grace: soon, tfgen.io/locality: rack}}\nspec:\n  tfReplicaSpecs:\n" + worker,
			[]string{`metadata.annotations[tfgen.io/evaluator-grace]: Invalid value: "soon": must be a duration of 0 or more, such as 10m or 90s`,
				`metadata.annotations[tfgen.io/restart-scope]: Unsupported value: "Pod": supported values: "Job", "Replica"`,
				`metadata.annotations[tfgen.io/locality]: Unsupported value: "rack": supported values: "node", "zone", "none"`}},
		{"localities are fine", "metadata: {name: j, annotations: {tfgen.io/locality: zone}}\nspec:\n  tfReplicaSpecs:\n" + worker, nil},
		{"an empty locality is none of them", "metadata: {name: j, annotations: {tfgen.io/locality: \"\"}}\nspec:\n  tfReplicaSpecs:\n" + worker,
			[]string{`metadata.annotations[tfgen.io/locality]: Unsupported value: "": supported values: "node", "zone", "none"`}},
		{"evaluator grace over tfsupervisor's longest", "metadata: {name: j, annotations: {tfgen.io/evaluator-grace: 3000000h}}\nspec:\n  tfReplicaSpecs:\n" + worker,
			[]string{`metadata.annotations[tfgen.io/evaluator-grace]: Invalid value: "3000000h": must be at most 2562047h (about 292 years, the longest duration tfsupervisor holds)`}},
		{"job restarts need wrap mode", "metadata: {name: j, annotations: {tfgen.io/restart-scope: Job}}\nspec:\n  tfReplicaSpecs:\n" + worker +
			"    PS: {template: {spec: {containers: [{name: side, image: s}, {name: tensorflow, image: tf}]}}}\n",
			[]string{`spec.tfReplicaSpecs[PS].template.spec.containers[1].command: Required value: restart scope Job (tfgen.io/restart-scope) restarts training processes in place, which tfsupervisor does only for a container with a command (wrap mode); give it one, or map its image with --image-entrypoints`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, lines(decode(t, v1+tt.yaml))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestKueueJobsAreNotElastic: a DRAGON job (min-instances, max-instances)
// resizes its workers by DRAGON's strategy, but not under Kueue, which
// admits it as one group of its rendered size; the queue label of the job
// is what puts it there, as on a TFJob under Kueue.
func TestKueueJobsAreNotElastic(t *testing.T) {
	const dragon = "spec:\n  min-instances: 1\n  max-instances: 4\n  tfReplicaSpecs:\n" +
		"    Worker: {replicas: 2, template: {spec: {containers: [{name: tensorflow, image: tf, command: [train]}]}}}\n"
	for _, tt := range []struct {
		name, meta string
		gang       string
		elastic    bool
	}{
		{"a DRAGON job", "metadata: {name: j}\n", "", true},
		{"a DRAGON job in a Kueue queue", "metadata: {name: j, labels: {kueue.x-k8s.io/queue-name: q}}\n", "kueue", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			j := decode(t, v1+tt.meta+dragon)
			if got := validate.Elastic(j); got != tt.elastic {
				t.Errorf("Elastic = %t, want %t", got, tt.elastic)
			}
			if got := j.Scheduler; (got == nil && tt.gang != "") || (got != nil && got.Gang != tt.gang) {
				t.Errorf("scheduler %+v, want gang %q", got, tt.gang)
			}
		})
	}
}
