package check

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/tfgen/tfgen/pkg/manifest"
)

func parse(t *testing.T, doc string) manifest.Object {
	t.Helper()
	o, err := manifest.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestObject(t *testing.T) {
	tests := []struct {
		name, doc, wantErr string
	}{
		{name: "valid service", doc: "apiVersion: v1\nkind: Service\nmetadata:\n  name: j-worker\n  labels: {\"a\":\"b\"}\nspec:\n  clusterIP: None\n  ports: [{\"port\":2222}]\n"},
		{name: "unknown field", doc: "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: j\nspec:\n  template: {\"spec\":{\"containers\":[{\"name\":\"c\",\"imagee\":\"x\"}]}}\n",
			wantErr: `StatefulSet/j: unknown field "spec.template.spec.containers[0].imagee"`},
		{name: "wrong type", doc: "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  ports: [{\"port\":\"x\"}]\n", wantErr: "Service/s:"},
		{name: "unknown kind", doc: "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n", wantErr: "Pod/p: tfgen renders no /v1, Kind=Pod"},
		{name: "bad name", doc: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad_Name\n", wantErr: "ConfigMap/Bad_Name: metadata.name: a lowercase RFC 1123 subdomain"},
		{name: "bad label", doc: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels: {\"a\":\"-x-\"}\n", wantErr: `metadata.labels[a]: "-x-"`},
		{name: "volcano podgroup", doc: "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata:\n  name: g\nspec:\n  minMember: 3\n  queue: default\n"},
		{name: "volcano field on coscheduling podgroup", doc: "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata:\n  name: g\nspec:\n  minMember: 3\n  queue: default\n",
			wantErr: `unknown field "spec.queue"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Object(parse(t, tt.doc))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestFastNamesAgree(t *testing.T) {
	for _, s := range []string{"", "a", "a-b", "-a", "a-", "A", "a.b", "a..b", "a_b", strings.Repeat("a", 63), strings.Repeat("a", 64),
		"app.kubernetes.io/name", "x/y/z", "/x", "x/", "Ab_c.d-9", "9a", "a b", "kueue.x-k8s.io/queue-name", strings.Repeat("a.", 130) + "a"} {
		if dnsSubdomain(s) && len(validation.IsDNS1123Subdomain(s)) > 0 {
			t.Errorf("dnsSubdomain(%q) accepts what apimachinery refuses", s)
		}
		if labelValue(s) && len(validation.IsValidLabelValue(s)) > 0 {
			t.Errorf("labelValue(%q) accepts what apimachinery refuses", s)
		}
		if labelKey(s) && len(validation.IsQualifiedName(s)) > 0 {
			t.Errorf("labelKey(%q) accepts what apimachinery refuses", s)
		}
	}
}
