package deploy

import (
	"errors"
	"io"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// policyFile is the file under test.
const policyFile = "admission-policy.yaml"

// statefulSetPolicy is the policy that holds a job's account to the gate
// tfgen.io/finished on its StatefulSets.
const statefulSetPolicy = "tfgen-supervisor-statefulsets"

// podSpecExceptions are the fields of corev1.PodSpec that the StatefulSet
// policy does not hold as they were, each with why changing it in a
// replica type's pod template cannot run other code.
var podSpecExceptions = map[string]string{
	"schedulingGates": "the one change allowed, and of tfgen.io/finished only (the gate rule): a scheduling gate only keeps " +
		"the pods made afterwards from being scheduled; it runs nothing",
}

// statefulSetSpecExceptions are the fields of appsv1.StatefulSetSpec that
// the policy does not compare whole, each with why.
var statefulSetSpecExceptions = map[string]string{
	"template": "compared by its parts: its metadata whole, and every field of its pod spec but schedulingGates " +
		"(podSpecExceptions)",
}

// olderPodSpecFields are fields the policy compares that the k8s.io/api of
// go.mod does not have, but an API server of a supported minor does.
var olderPodSpecFields = map[string]string{
	"workloadRef": "PodSpec of Kubernetes 1.35 only (1.36 replaced it with schedulingGroup)",
}

// comparisons are the fields expressions hold as they were: `A.?f ==
// B.?f`, A and B the new and old object's same path from object and
// oldObject (which the controller-manager's type check follows, so that a
// field a supported minor does not know fails there), or through dyn() for
// the fields the oldest supported minor does not know.
func comparisons(exprs []string, newPath, oldPath string) map[string]bool {
	q := regexp.QuoteMeta
	re := regexp.MustCompile(`(?:` + q(newPath) + `|dyn\(` + q(newPath) + `\))\.\?(\w+) == (?:` + q(oldPath) + `|dyn\(` + q(oldPath) + `\))\.\?(\w+)`)
	got := map[string]bool{}
	for _, e := range exprs {
		for _, m := range re.FindAllStringSubmatch(e, -1) {
			if m[1] == m[2] {
				got[m[1]] = true
			}
		}
	}
	return got
}

// jsonFields are the JSON names of struct type t's fields.
func jsonFields(t reflect.Type) []string {
	var names []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}

// TestStatefulSetPolicyComparesEveryField: every field of the pod
// template's spec (corev1.PodSpec) and of the StatefulSet's spec
// (appsv1.StatefulSetSpec), as the k8s.io/api of go.mod has them, is held
// as it was by the StatefulSet policy or is an exception with a reason;
// every name the policy compares is a field of those types (or of an
// older supported minor's), so a typo cannot leave a field unheld.
func TestStatefulSetPolicyComparesEveryField(t *testing.T) {
	p := policy(t, statefulSetPolicy)
	var exprs []string
	for _, v := range p.Spec.Validations {
		exprs = append(exprs, v.Expression)
	}
	vars := map[string]string{}
	for _, v := range p.Spec.Variables {
		vars[v.Name] = v.Expression
	}
	check := func(what string, typ reflect.Type, compared map[string]bool, exceptions, older map[string]string) {
		fields := jsonFields(typ)
		for _, f := range fields {
			_, excepted := exceptions[f]
			switch {
			case compared[f] && excepted:
				t.Errorf("%s.%s is both compared and an exception", what, f)
			case !compared[f] && !excepted:
				t.Errorf("%s.%s (%s) is neither compared by %s nor an exception with a reason why it cannot run other code",
					what, f, typ, statefulSetPolicy)
			}
		}
		for f := range compared {
			if !slices.Contains(fields, f) && older[f] == "" {
				t.Errorf("%s compares %s.%s, which %s does not have", statefulSetPolicy, what, f, typ)
			}
		}
		for f, why := range exceptions {
			if !slices.Contains(fields, f) {
				t.Errorf("exception %s.%s (%s) is not a field of %s", what, f, why, typ)
			}
		}
		t.Logf("%s: %d fields, %d compared, %d exceptions", what, len(fields), len(compared), len(exceptions))
	}
	check("spec.template.spec", reflect.TypeFor[corev1.PodSpec](), comparisons(exprs, "object.spec.template.spec", "oldObject.spec.template.spec"),
		podSpecExceptions, olderPodSpecFields)
	check("spec", reflect.TypeFor[appsv1.StatefulSetSpec](), comparisons(exprs, "object.spec", "oldObject.spec"),
		statefulSetSpecExceptions, nil)

	// What the exceptions say is compared otherwise.
	if !slices.Contains(exprs, "object.spec.template.?metadata == oldObject.spec.template.?metadata") {
		t.Errorf("%s does not hold the pod template's metadata as it was", statefulSetPolicy)
	}
	gate := regexp.MustCompile(`^object\.spec\.template\.spec\.\?schedulingGates\.orValue\(\[\]\)\.filter\(g, g\.name != variables\.finishedGate\) ==\s+` +
		`oldObject\.spec\.template\.spec\.\?schedulingGates\.orValue\(\[\]\)\.filter\(g, g\.name != variables\.finishedGate\)$`)
	if !slices.ContainsFunc(exprs, gate.MatchString) {
		t.Errorf("%s has no rule holding every scheduling gate but tfgen.io/finished as it was", statefulSetPolicy)
	}
	if vars["finishedGate"] != "'tfgen.io/finished'" {
		t.Errorf("variable finishedGate is %q, want 'tfgen.io/finished'", vars["finishedGate"])
	}
}

// policy is the ValidatingAdmissionPolicy name of policyFile.
func policy(t *testing.T, name string) admissionregistrationv1.ValidatingAdmissionPolicy {
	t.Helper()
	f, err := os.Open(policyFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	for {
		var p admissionregistrationv1.ValidatingAdmissionPolicy
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("read %s: %v", policyFile, err)
		}
		if p.Kind == "ValidatingAdmissionPolicy" && p.Name == name {
			return p
		}
	}
	t.Fatalf("%s has no ValidatingAdmissionPolicy %s", policyFile, name)
	return admissionregistrationv1.ValidatingAdmissionPolicy{}
}
