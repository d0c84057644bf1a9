package validate

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// resources checks a container's requests and limits as the API server
// does: resource names a container may ask for, quantities of 0 or more,
// whole numbers of extended resources (nvidia.com/gpu), which may not be
// overcommitted, requests no more than limits, huge pages in whole pages
// and with cpu or memory.
func resources(r corev1.ResourceRequirements, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	cpuOrMemory, hugePages := false, false
	for _, list := range []struct {
		name string
		l    corev1.ResourceList
	}{{"limits", r.Limits}, {"requests", r.Requests}} {
		for _, name := range slices.Sorted(maps.Keys(list.l)) {
			q := list.l[name]
			rp := p.Child(list.name).Key(string(name))
			errs = append(errs, resourceName(name, rp)...)
			if q.Sign() < 0 {
				errs = append(errs, field.Invalid(rp, q.String(), "must be greater than or equal to 0"))
			}
			if extended(name) && q.MilliValue()%1000 != 0 {
				errs = append(errs, field.Invalid(rp, q.String(), "must be an integer"))
			}
			if hugePage(name) {
				hugePages = true
				if !divisibleHugePages(name, q) {
					errs = append(errs, field.Invalid(rp, q.String(), fmt.Sprintf("%s is not positive integer multiple of %s", q.String(), name)))
				}
			}
			if name == corev1.ResourceCPU || name == corev1.ResourceMemory {
				cpuOrMemory = true
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(r.Requests)) {
		q := r.Requests[name]
		limit, ok := r.Limits[name]
		overcommit := native(name) && !hugePage(name)
		switch {
		case ok && q.Cmp(limit) != 0 && !overcommit:
			errs = append(errs, field.Invalid(p.Child("requests").Key(string(name)), q.String(), fmt.Sprintf("must be equal to the %s limit of %s", name, limit.String())))
		case ok && q.Cmp(limit) > 0:
			errs = append(errs, field.Invalid(p.Child("requests").Key(string(name)), q.String(), fmt.Sprintf("must be less than or equal to the %s limit of %s", name, limit.String())))
		case !ok && !overcommit:
			errs = append(errs, field.Required(p.Child("limits").Key(string(name)), fmt.Sprintf("%s cannot be overcommitted: its limit must be set, equal to its request", name)))
		}
	}
	if hugePages && !cpuOrMemory {
		errs = append(errs, field.Forbidden(p, "HugePages require cpu or memory"))
	}
	return errs
}

// resourceName checks the name of a resource a container asks for.
func resourceName(name corev1.ResourceName, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(string(name)) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	switch {
	case len(errs) > 0:
	case !strings.Contains(string(name), "/"):
		if !slices.Contains([]corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage}, name) && !hugePage(name) {
			errs = append(errs, field.Invalid(p, name, "must be a standard resource for containers (cpu, memory, ephemeral-storage, hugepages-SIZE) or a fully qualified one (nvidia.com/gpu)"))
		}
	case !native(name) && !extended(name):
		errs = append(errs, field.Invalid(p, name, "doesn't follow extended resource name standard"))
	}
	return errs
}

// native resources are in the default namespace (no domain, or
// kubernetes.io).
func native(name corev1.ResourceName) bool {
	return !strings.Contains(string(name), "/") || strings.Contains(string(name), "kubernetes.io/")
}

// extended resources (nvidia.com/gpu) are counted in whole units.
func extended(name corev1.ResourceName) bool {
	if native(name) || strings.HasPrefix(string(name), corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(corev1.DefaultResourceRequestsPrefix+string(name))) == 0
}

func hugePage(name corev1.ResourceName) bool {
	return strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix)
}

// divisibleHugePages reports whether q is a whole number of the pages of
// resource name (hugepages-2Mi).
func divisibleHugePages(name corev1.ResourceName, q resource.Quantity) bool {
	size, err := resource.ParseQuantity(strings.TrimPrefix(string(name), corev1.ResourceHugePagesPrefix))
	if err != nil || size.Sign() <= 0 || size.MilliValue()%1000 != 0 {
		return false
	}
	return q.Value()%size.Value() == 0
}
