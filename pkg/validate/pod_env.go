package validate

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// envFieldPaths are the pod fields an env var may take from the downward
// API, besides one label or annotation.
var envFieldPaths = []string{"metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName",
	"status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"}

// resourceFieldPaths are the resources an env var may take from the
// downward API, besides requests.hugepages-* and limits.hugepages-*.
var resourceFieldPaths = []string{"limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory"}

func envVars(env []corev1.EnvVar, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, e := range env {
		ep := p.Index(i)
		if e.Name == "" {
			errs = append(errs, field.Required(ep.Child("name"), ""))
		}
		for _, msg := range relaxedEnvName(e.Name) {
			errs = append(errs, field.Invalid(ep.Child("name"), e.Name, msg))
		}
		if e.ValueFrom != nil {
			errs = append(errs, valueFrom(e, ep.Child("valueFrom"))...)
		}
	}
	return errs
}

// relaxedEnvName checks an env var's name (or envFrom's prefix) as the API
// server does: printable ASCII but '='.
func relaxedEnvName(name string) []string {
	if name == "" {
		return nil
	}
	return validation.IsRelaxedEnvVarName(name)
}

func valueFrom(e corev1.EnvVar, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	from := e.ValueFrom
	n := 0
	if r := from.FieldRef; r != nil {
		n++
		errs = append(errs, objectField(r, envFieldPaths, p.Child("fieldRef"))...)
	}
	if r := from.ResourceFieldRef; r != nil {
		n++
		errs = append(errs, resourceField(r, p.Child("resourceFieldRef"))...)
	}
	if r := from.ConfigMapKeyRef; r != nil {
		n++
		errs = append(errs, keyRef(r.Name, r.Key, p.Child("configMapKeyRef"))...)
	}
	if r := from.SecretKeyRef; r != nil {
		n++
		errs = append(errs, keyRef(r.Name, r.Key, p.Child("secretKeyRef"))...)
	}
	if from.FileKeyRef != nil {
		n++
	}
	switch {
	case n == 0:
		errs = append(errs, field.Invalid(p, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`"))
	case e.Value != "":
		errs = append(errs, field.Invalid(p, "", "may not be specified when `value` is not empty"))
	case n > 1:
		errs = append(errs, field.Invalid(p, "", "may not have more than one field specified at a time"))
	}
	return errs
}

// objectField checks a downward API field reference against the paths
// allowed where it is used.
func objectField(r *corev1.ObjectFieldSelector, allowed []string, p *field.Path) field.ErrorList {
	if r.APIVersion != "" && r.APIVersion != "v1" {
		return field.ErrorList{field.Invalid(p.Child("apiVersion"), r.APIVersion, `must be "v1"`)}
	}
	if r.FieldPath == "" {
		return field.ErrorList{field.Required(p.Child("fieldPath"), "")}
	}
	for _, prefix := range []string{"metadata.labels", "metadata.annotations"} {
		if key, ok := subscript(r.FieldPath, prefix); ok {
			if prefix == "metadata.annotations" {
				key = strings.ToLower(key)
			}
			var errs field.ErrorList
			for _, msg := range validation.IsQualifiedName(key) {
				errs = append(errs, field.Invalid(p, key, msg))
			}
			return errs
		}
	}
	if !slices.Contains(allowed, r.FieldPath) {
		return field.ErrorList{field.NotSupported(p.Child("fieldPath"), r.FieldPath, allowed)}
	}
	return nil
}

// subscript reads PREFIX['KEY'], a fieldPath of one label or annotation.
func subscript(path, prefix string) (string, bool) {
	rest, ok := strings.CutPrefix(path, prefix+"['")
	if !ok || !strings.HasSuffix(rest, "']") {
		return "", false
	}
	return strings.TrimSuffix(rest, "']"), true
}

// divisors are the divisors the API server allows per resource.
var divisors = map[string][]string{
	"cpu":    {"1m", "1"},
	"memory": {"1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"},
}

func resourceField(r *corev1.ResourceFieldSelector, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case r.Resource == "":
		errs = append(errs, field.Required(p.Child("resource"), ""))
	case !slices.Contains(resourceFieldPaths, r.Resource) && !strings.HasPrefix(r.Resource, "requests.hugepages-") && !strings.HasPrefix(r.Resource, "limits.hugepages-"):
		errs = append(errs, field.NotSupported(p.Child("resource"), r.Resource, resourceFieldPaths))
	}
	if r.Divisor.IsZero() {
		return errs
	}
	kind := "memory"
	if strings.HasSuffix(r.Resource, ".cpu") {
		kind = "cpu"
	}
	if !slices.Contains(divisors[kind], r.Divisor.String()) {
		errs = append(errs, field.Invalid(p.Child("divisor"), r.Divisor.String(), "only divisor's values "+strings.Join(divisors[kind], ", ")+" are supported with the "+kind+" resource"))
	}
	return errs
}

// keyRef checks a ConfigMap's or Secret's key reference.
func keyRef(name, key string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	} else {
		for _, msg := range validation.IsDNS1123Subdomain(name) {
			errs = append(errs, field.Invalid(p.Child("name"), name, msg))
		}
	}
	if key == "" {
		errs = append(errs, field.Required(p.Child("key"), ""))
	} else {
		for _, msg := range validation.IsConfigMapKey(key) {
			errs = append(errs, field.Invalid(p.Child("key"), key, msg))
		}
	}
	return errs
}

func envFrom(from []corev1.EnvFromSource, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, e := range from {
		ep := p.Index(i)
		for _, msg := range relaxedEnvName(e.Prefix) {
			errs = append(errs, field.Invalid(ep.Child("prefix"), e.Prefix, msg))
		}
		n := 0
		if e.ConfigMapRef != nil {
			n++
			errs = append(errs, refName(e.ConfigMapRef.Name, ep.Child("configMapRef", "name"))...)
		}
		if e.SecretRef != nil {
			n++
			errs = append(errs, refName(e.SecretRef.Name, ep.Child("secretRef", "name"))...)
		}
		switch {
		case n == 0:
			errs = append(errs, field.Invalid(p, "", "must specify one of: `configMapRef` or `secretRef`"))
		case n > 1:
			errs = append(errs, field.Invalid(p, "", "may not have more than one field specified at a time"))
		}
	}
	return errs
}

// refName checks the name of an object referred to: required, a DNS
// subdomain.
func refName(name string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	return errs
}
