package check

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/tfgen/tfgen/pkg/manifest"
)

// types maps every kind tfgen renders to its Go type.
var types = map[schema.GroupVersionKind]reflect.Type{
	{Version: "v1", Kind: "ConfigMap"}:                                       reflect.TypeFor[corev1.ConfigMap](),
	{Version: "v1", Kind: "Service"}:                                         reflect.TypeFor[corev1.Service](),
	{Version: "v1", Kind: "ServiceAccount"}:                                  reflect.TypeFor[corev1.ServiceAccount](),
	{Version: "v1", Kind: "Secret"}:                                          reflect.TypeFor[corev1.Secret](),
	{Group: "apps", Version: "v1", Kind: "StatefulSet"}:                      reflect.TypeFor[appsv1.StatefulSet](),
	{Group: "apps", Version: "v1", Kind: "Deployment"}:                       reflect.TypeFor[appsv1.Deployment](),
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "Role"}:        reflect.TypeFor[rbacv1.Role](),
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "RoleBinding"}: reflect.TypeFor[rbacv1.RoleBinding](),
	VolcanoPodGroup:          reflect.TypeFor[VolcanoGroup](),
	SchedulerPluginsPodGroup: reflect.TypeFor[CoschedulingGroup](),
	{Group: "scheduling.k8s.io", Version: "v1beta1", Kind: "Workload"}: reflect.TypeFor[schedulingv1beta1.Workload](),
	{Group: "scheduling.k8s.io", Version: "v1beta1", Kind: "PodGroup"}: reflect.TypeFor[schedulingv1beta1.PodGroup](),
}

// Object strictly decodes o into its Go type, without keeping the result,
// and checks its name and labels. It reports every problem of the object.
func Object(o manifest.Object) error {
	gvk := o.GroupVersionKind()
	t, ok := types[gvk]
	if !ok {
		return fmt.Errorf("%s: tfgen renders no %s", o, gvk)
	}
	errs := strict(map[string]any(o), t)
	if o.Name() == "" {
		errs = append(errs, "metadata.name is empty")
	}
	if name := o.Name(); !dnsSubdomain(name) {
		for _, m := range validation.IsDNS1123Subdomain(name) {
			errs = append(errs, "metadata.name: "+m)
		}
	}
	errs = append(errs, labelErrors(o)...)
	if len(errs) > 0 {
		return fmt.Errorf("%s: %s", o, strings.Join(errs, "; "))
	}
	return nil
}

// Objects checks every object and returns all problems at once.
func Objects(objs []manifest.Object) error {
	var errs []error
	for _, o := range objs {
		if err := Object(o); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func labelErrors(o manifest.Object) []string {
	meta, _ := o["metadata"].(map[string]any)
	labels, _ := meta["labels"].(map[string]any)
	var errs []string
	for k, v := range labels {
		s, _ := v.(string)
		if labelKey(k) && labelValue(s) {
			continue
		}
		for _, m := range validation.IsQualifiedName(k) {
			errs = append(errs, fmt.Sprintf("metadata.labels[%s]: %s", k, m))
		}
		for _, m := range validation.IsValidLabelValue(s) {
			errs = append(errs, fmt.Sprintf("metadata.labels[%s]: %q: %s", k, s, m))
		}
	}
	return errs
}
