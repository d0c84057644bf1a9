package operate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
)

// kind is a kind of object tfgen renders, as Delete removes it.
type kind struct {
	name string // as kubectl prints it: statefulset.apps
	gvr  schema.GroupVersionResource
}

// jobKinds are the kinds of a job's objects, in the order Delete removes
// them: StatefulSets first, so that no pod comes back, the record last.
// PodGroups are skipped where their CRD is not installed.
var jobKinds = []kind{
	{"statefulset.apps", schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}},
	{"deployment.apps", schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}},
	{"pod", schema.GroupVersionResource{Version: "v1", Resource: "pods"}},
	{"service", schema.GroupVersionResource{Version: "v1", Resource: "services"}},
	{"podgroup.scheduling.volcano.sh", schema.GroupVersionResource{Group: "scheduling.volcano.sh", Version: "v1beta1", Resource: "podgroups"}},
	{"podgroup.scheduling.x-k8s.io", schema.GroupVersionResource{Group: "scheduling.x-k8s.io", Version: "v1alpha1", Resource: "podgroups"}},
	{"rolebinding.rbac.authorization.k8s.io", schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"}},
	{"role.rbac.authorization.k8s.io", schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}},
	{"serviceaccount", schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}},
	{"configmap", schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}},
}

// DeleteOptions tune Delete.
type DeleteOptions struct {
	// GracePeriod of pods, in seconds; nil for each pod's own.
	GracePeriod *int64
	// Timeout bounds the wait for the objects to be gone; 0 does not wait.
	Timeout time.Duration
}

// object is one object Delete removed.
type object struct {
	kind kind
	name string
	uid  types.UID
}

func (o object) String() string { return o.kind.name + "/" + o.name }

// Delete removes every object of job ns/name (labelled
// app.kubernetes.io/instance=name and app.kubernetes.io/managed-by=tfgen)
// and waits, up to opts.Timeout, until they are gone. It returns them as
// kind/name in the order deleted; a job with no object is a
// *NotFoundError.
func (c *Client) Delete(ctx context.Context, ns, name string, opts DeleteOptions) ([]string, error) {
	if c.Dynamic == nil {
		return nil, errors.New("delete: no dynamic client")
	}
	objs, err := c.jobObjects(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	if len(objs) == 0 {
		return nil, &NotFoundError{Namespace: ns, Name: name}
	}
	bg := metav1.DeletePropagationBackground
	var out []string
	for _, o := range objs {
		do := metav1.DeleteOptions{PropagationPolicy: &bg, Preconditions: &metav1.Preconditions{UID: &o.uid}}
		if o.kind.gvr.Resource == "pods" {
			do.GracePeriodSeconds = opts.GracePeriod
		}
		err := c.Dynamic.Resource(o.kind.gvr).Namespace(ns).Delete(ctx, o.name, do)
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return out, fmt.Errorf("delete %s: %w", o, err)
		}
		out = append(out, o.String())
	}
	if opts.Timeout <= 0 {
		return out, nil
	}
	var left []object
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, opts.Timeout, true, func(ctx context.Context) (bool, error) {
		now, err := c.jobObjects(ctx, ns, name)
		if err != nil {
			return false, err
		}
		gone := map[types.UID]bool{}
		for _, o := range objs {
			gone[o.uid] = true
		}
		left = left[:0]
		for _, o := range now {
			if gone[o.uid] {
				left = append(left, o)
			}
		}
		return len(left) == 0, nil
	})
	if wait.Interrupted(err) && len(left) > 0 && ctx.Err() == nil {
		names := make([]string, 0, 3)
		for i, o := range left {
			if i == 3 {
				names = append(names, fmt.Sprintf("and %d more", len(left)-3))
				break
			}
			names = append(names, o.String())
		}
		return out, fmt.Errorf("job %s: %s still there after %s", name, strings.Join(names, ", "), opts.Timeout)
	}
	if err != nil {
		return out, fmt.Errorf("wait for the objects of job %s to be gone: %w", name, err)
	}
	return out, nil
}

// jobObjects lists the objects of job name, kind by kind in jobKinds'
// order; kinds the API server does not serve are skipped.
func (c *Client) jobObjects(ctx context.Context, ns, name string) ([]object, error) {
	var out []object
	for _, k := range jobKinds {
		list, err := c.Dynamic.Resource(k.gvr).Namespace(ns).List(ctx, metav1.ListOptions{LabelSelector: JobSelector(name)})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list %ss of job %s: %w", k.name, name, err)
		}
		for _, item := range list.Items {
			out = append(out, object{kind: k, name: item.GetName(), uid: item.GetUID()})
		}
	}
	return out, nil
}
