package harness

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

func TestUnkept(t *testing.T) {
	for _, tc := range []struct {
		name           string
		sent, returned string
		want           []string
	}{
		{"kept, with defaults and metadata added",
			`{kind: Pod, metadata: {name: a, labels: {app.kubernetes.io/name: x}}, spec: {containers: [{name: c, image: i}]}}`,
			`{kind: Pod, metadata: {name: a, uid: u, labels: {app.kubernetes.io/name: x}}, spec: {containers: [{name: c, image: i, imagePullPolicy: Always}], restartPolicy: Always}, status: {}}`,
			nil},
		{"a dropped field",
			`{spec: {containers: [{name: c, restartPolicy: Never, restartPolicyRules: [{action: Restart}]}]}}`,
			`{spec: {containers: [{name: c}]}}`,
			[]string{
				`spec.containers[name=c].restartPolicy: dropped (sent "Never")`,
				`spec.containers[name=c].restartPolicyRules: dropped (sent [{"action":"Restart"}])`,
			}},
		{"a dropped element is named, the next one is not changed",
			`{volumes: [{name: tfgen-bin, image: {reference: r}}, {name: data, emptyDir: {}}], volumeMounts: [{name: tfgen-bin, mountPath: /tfgen/bin}, {name: data, mountPath: /data}]}`,
			`{volumes: [{name: data, emptyDir: {}}], volumeMounts: [{name: data, mountPath: /data}]}`,
			[]string{
				`volumeMounts[name=tfgen-bin]: dropped (sent {"mountPath":"/tfgen/bin","name":"tfgen-bin"})`,
				`volumes[name=tfgen-bin]: dropped (sent {"image":{"reference":"r"},"name":"tfgen-bin"})`,
			}},
		{"mounts of one volume are told apart by mountPath",
			`{volumeMounts: [{name: v, mountPath: /a}, {name: v, mountPath: /b, subPath: b}]}`,
			`{volumeMounts: [{name: v, mountPath: /b}]}`,
			[]string{
				`volumeMounts[mountPath=/a]: dropped (sent {"mountPath":"/a","name":"v"})`,
				`volumeMounts[mountPath=/b].subPath: dropped (sent "b")`,
			}},
		{"a changed value",
			`{spec: {replicas: 3, template: {spec: {hostNetwork: true}}}}`,
			`{spec: {replicas: 1, template: {spec: {hostNetwork: false}}}}`,
			[]string{"spec.replicas: sent 3, returned 1", "spec.template.spec.hostNetwork: sent true, returned false"}},
		{"quantities spelled otherwise where they are quantities",
			`{resources: {limits: {cpu: "0.5", memory: 1e3, storage: 2, nvidia.com/gpu: "1"}, requests: {cpu: 1000m}}, emptyDir: {sizeLimit: 1024Mi}, overhead: {cpu: "0.1"}}`,
			`{resources: {limits: {cpu: 500m, memory: 1k, storage: "2", nvidia.com/gpu: "1"}, requests: {cpu: "1"}}, emptyDir: {sizeLimit: 1Gi}, overhead: {cpu: 100m}}`,
			nil},
		{"a quantity changed in value, or a string spelled otherwise elsewhere",
			`{resources: {limits: {cpu: "0.5"}}, env: [{name: E, value: "0.5"}]}`,
			`{resources: {limits: {cpu: "1"}}, env: [{name: E, value: 500m}]}`,
			[]string{
				`env[name=E].value: sent "0.5", returned "500m"`,
				`resources.limits.cpu: sent "0.5", returned "1"`,
			}},
		{"null, empty lists and maps left out",
			`{metadata: {creationTimestamp: null, annotations: {}}, spec: {args: [], emptyDir: {}}}`,
			`{metadata: {creationTimestamp: "2026-01-01T00:00:00Z"}, spec: {emptyDir: {}}}`,
			nil},
		{"an empty map sent and changed to a value",
			`{spec: {emptyDir: {}}}`,
			`{spec: {emptyDir: "x"}}`,
			[]string{`spec.emptyDir: sent {}, returned "x"`}},
		{"a list cut short",
			`{command: [a, b, c]}`,
			`{command: [a]}`,
			[]string{`command[1]: dropped (sent "b")`, `command[2]: dropped (sent "c")`}},
		{"elements reordered",
			`{initContainers: [{name: install}, {name: sidecar}]}`,
			`{initContainers: [{name: sidecar}, {name: install}]}`,
			[]string{`initContainers (order of name): sent ["install","sidecar"], returned ["sidecar","install"]`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sent, returned Object
			if err := yaml.Unmarshal([]byte(tc.sent), &sent); err != nil {
				t.Fatal(err)
			}
			if err := yaml.Unmarshal([]byte(tc.returned), &returned); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range Unkept(sent, returned) {
				got = append(got, c.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Unkept (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnkeptNumbers: the API machinery decodes integers as int64, JSON
// as float64; the same number is kept.
func TestUnkeptNumbers(t *testing.T) {
	sent := Object{"replicas": float64(3), "port": float64(8080)}
	returned := Object{"replicas": int64(3), "port": int64(8081)}
	got := Unkept(sent, returned)
	if len(got) != 1 || got[0].String() != "port: sent 8080, returned 8081" {
		t.Errorf("Unkept = %v, want only port changed", got)
	}
}
