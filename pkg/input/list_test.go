package input

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// kubectlList is what `kubectl get tfjobs -A -o yaml` prints, shortened.
const kubectlList = `apiVersion: v1
kind: List
metadata:
  resourceVersion: ""
items:
- apiVersion: kubeflow.org/v1
  kind: TFJob
  metadata:
    annotations:
      kubectl.kubernetes.io/last-applied-configuration: |
        {"apiVersion":"kubeflow.org/v1","kind":"TFJob"}
    creationTimestamp: "2026-11-20T10:00:00Z"
    generation: 3
    managedFields:
    - {manager: kubectl, operation: Update}
    name: mnist
    namespace: team-a
    resourceVersion: "4711"
    selfLink: /apis/kubeflow.org/v1/namespaces/team-a/tfjobs/mnist
    uid: 0b7c4c8e-7f7e-4f4a-9d47-1c1f7d2b9a11
  spec: {tfReplicaSpecs: {Worker: {replicas: 12345678901234567890}}}
  status:
    conditions: [{type: Succeeded, status: "True"}]
- apiVersion: v1
  kind: ConfigMap
  metadata:
    annotations: {keep: "yes"}
    name: extra
  data: {a: "1"}
`

func TestListExpanded(t *testing.T) {
	docs, err := Read([]string{Stdin}, strings.NewReader("kind: Before\n---\n"+kubectlList+"---\nkind: After\n"))
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Index, Line, Item int
		Finished          string
		JSON              string
	}
	var gots []got
	for _, d := range docs {
		j, err := d.JSON()
		if err != nil {
			t.Fatal(err)
		}
		gots = append(gots, got{d.Index, d.Line, d.Item, d.Finished, string(j)})
	}
	want := []got{
		{0, 1, 0, "", `{"kind":"Before"}`},
		{1, 8, 1, "Succeeded", `{"apiVersion":"kubeflow.org/v1","kind":"TFJob","metadata":{"name":"mnist","namespace":"team-a"},"spec":{"tfReplicaSpecs":{"Worker":{"replicas":12345678901234567890}}}}`},
		{1, 26, 2, "", `{"apiVersion":"v1","data":{"a":"1"},"kind":"ConfigMap","metadata":{"annotations":{"keep":"yes"},"name":"extra"}}`},
		{2, 32, 0, "", `{"kind":"After"}`},
	}
	if diff := cmp.Diff(want, gots); diff != "" {
		t.Errorf("documents (-want +got):\n%s", diff)
	}
}

// TestListFinished: an item whose job had ended says so, by a Kubeflow
// condition or, in caicloud's TFJob, by its phase.
func TestListFinished(t *testing.T) {
	tests := []struct{ name, status, want string }{
		{"Kubeflow succeeded", `{conditions: [{type: Running, status: "False"}, {type: Succeeded, status: "True"}]}`, "Succeeded"},
		{"Kubeflow failed", `{conditions: [{type: Failed, status: "True"}]}`, "Failed"},
		{"Kubeflow running", `{conditions: [{type: Succeeded, status: "False"}]}`, ""},
		{"caicloud succeeded", `{phase: Succeeded, conditions: null}`, "Succeeded"},
		{"caicloud failed", `{phase: Failed}`, "Failed"},
		{"caicloud running", `{phase: Running, conditions: [{type: Scheduled, status: "True"}]}`, ""},
		{"no status", `null`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list := "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: a/v1, kind: J, metadata: {name: j}, status: " + tt.status + "}\n"
			docs, err := Read([]string{Stdin}, strings.NewReader(list))
			if err != nil {
				t.Fatal(err)
			}
			if len(docs) != 1 || docs[0].Finished != tt.want {
				t.Errorf("got %+v, want one item finished %q", docs, tt.want)
			}
		})
	}
}

func TestListNotExpanded(t *testing.T) {
	for name, doc := range map[string]string{
		"another group's List": "apiVersion: example.com/v1\nkind: List\nitems: [{kind: A}]\n",
		"a kind named like it": "apiVersion: v1\nkind: ConfigMap\ndata: {kind: List}\n",
	} {
		t.Run(name, func(t *testing.T) {
			docs, err := Read([]string{Stdin}, strings.NewReader(doc))
			if err != nil {
				t.Fatal(err)
			}
			if len(docs) != 1 || docs[0].Item != 0 || strings.TrimSpace(string(docs[0].Raw)) != strings.TrimSpace(doc) {
				t.Errorf("got %d documents %+v, want the document as it came", len(docs), docs)
			}
		})
	}
}

func TestListJSONAndEmpty(t *testing.T) {
	in := `{"apiVersion":"v1","kind":"List","items":[]}` + "\n" +
		`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","uid":"u"}}]}`
	docs, err := Read([]string{Stdin}, strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 || docs[0].Line != 2 || docs[0].Item != 1 || string(docs[0].Raw) != `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}}` {
		t.Errorf("got %+v, want the one Secret of the second List, without its uid", docs)
	}
}

func TestListBadItem(t *testing.T) {
	_, err := Read([]string{Stdin}, strings.NewReader("apiVersion: v1\nkind: List\nitems:\n- {kind: A}\n- 3\n"))
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 5 || !strings.Contains(err.Error(), "items[1]: an item must be an object") {
		t.Errorf("err = %v, want a SyntaxError at line 5 naming items[1]", err)
	}
}

// A List is one document: its items together are held to the limits of
// one, aliases expanded.
func TestListLimits(t *testing.T) {
	list := "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, data: {a: &a " + strings.Repeat("x", 100_000) + "}}\n" +
		strings.Repeat("- {apiVersion: v1, kind: ConfigMap, data: {a: *a}}\n", 100)
	_, err := Read([]string{Stdin}, strings.NewReader(list))
	var le *LimitError
	if !errors.As(err, &le) {
		t.Errorf("err = %v, want a LimitError", err)
	}
}
