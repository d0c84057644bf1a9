package harness

import (
	"context"
	_ "embed"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// PodGroupCRDs are minimal PodGroup CRDs of Volcano
// (scheduling.volcano.sh/v1beta1) and scheduler-plugins
// (scheduling.x-k8s.io/v1alpha1), so that manifests with gang scheduling
// apply (podgroup-crds.yaml says how they are cut down).
//
//go:embed podgroup-crds.yaml
var PodGroupCRDs []byte

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// InstallCRDs creates the CustomResourceDefinitions of the YAML stream
// crds on the API server of cfg (one already there is left as it is) and
// returns once each is Established and its group-versions are served in
// discovery, or ctx ends.
func InstallCRDs(ctx context.Context, cfg *rest.Config, crds []byte) error {
	objs, ok, err := DecodeObjects(crds)
	if err != nil || !ok {
		return fmt.Errorf("CRDs: not a stream of objects: %v", err)
	}
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	for _, o := range objs {
		u := &unstructured.Unstructured{Object: o}
		if _, err := client.Resource(crdResource).Create(ctx, u, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create CRD %s: %w", u.GetName(), err)
		}
	}
	for _, o := range objs {
		u := &unstructured.Unstructured{Object: o}
		group, _, _ := unstructured.NestedString(o, "spec", "group")
		versions, _, _ := unstructured.NestedSlice(o, "spec", "versions")
		last := ""
		err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			crd, err := client.Resource(crdResource).Get(ctx, u.GetName(), metav1.GetOptions{})
			if err != nil {
				last = err.Error()
				return false, nil
			}
			if !established(crd) {
				last = "not Established"
				return false, nil
			}
			for _, v := range versions {
				name, _, _ := unstructured.NestedString(v.(map[string]any), "name")
				if _, err := dc.ServerResourcesForGroupVersion(group + "/" + name); err != nil {
					last = fmt.Sprintf("%s/%s not served: %v", group, name, err)
					return false, nil
				}
			}
			return true, nil
		})
		if err != nil {
			return fmt.Errorf("CRD %s: %w (last seen: %s)", u.GetName(), err, last)
		}
	}
	return nil
}

func established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		c, _ := c.(map[string]any)
		if c["type"] == "Established" && c["status"] == "True" {
			return true
		}
	}
	return false
}
