package operate

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
// PodGroups and Workloads are skipped where their API is not served.
var jobKinds = []kind{
	{"statefulset.apps", schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}},
	{"deployment.apps", schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}},
	{"pod", schema.GroupVersionResource{Version: "v1", Resource: "pods"}},
	{"service", schema.GroupVersionResource{Version: "v1", Resource: "services"}},
	{"podgroup.scheduling.volcano.sh", schema.GroupVersionResource{Group: "scheduling.volcano.sh", Version: "v1beta1", Resource: "podgroups"}},
	{"podgroup.scheduling.x-k8s.io", schema.GroupVersionResource{Group: "scheduling.x-k8s.io", Version: "v1alpha1", Resource: "podgroups"}},
	{"podgroup.scheduling.k8s.io", schema.GroupVersionResource{Group: "scheduling.k8s.io", Version: "v1beta1", Resource: "podgroups"}},
	{"workload.scheduling.k8s.io", schema.GroupVersionResource{Group: "scheduling.k8s.io", Version: "v1beta1", Resource: "workloads"}},
	{"rolebinding.rbac.authorization.k8s.io", schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"}},
	{"role.rbac.authorization.k8s.io", schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}},
	{"secret", schema.GroupVersionResource{Version: "v1", Resource: "secrets"}}, // the job account's token, if any
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
	objs, err := c.objects(ctx, ns, name, jobKinds)
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
	return out, c.waitGone(ctx, ns, name, objs, opts.Timeout)
}

// waitGone waits until none of objs is left, or timeout passes. An API
// error while waiting is retried until then.
func (c *Client) waitGone(ctx context.Context, ns, name string, objs []object, timeout time.Duration) error {
	deleted := map[types.UID]bool{}
	var kinds []kind
	for _, o := range objs {
		deleted[o.uid] = true
		if !slices.Contains(kinds, o.kind) {
			kinds = append(kinds, o.kind)
		}
	}
	left, looked, lastErr := slices.Clone(objs), false, error(nil)
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		now, err := c.objects(ctx, ns, name, kinds)
		if err != nil {
			lastErr = err
			return false, nil
		}
		looked = true
		left = left[:0]
		for _, o := range now {
			if deleted[o.uid] {
				left = append(left, o)
			}
		}
		return len(left) == 0, nil
	})
	switch {
	case err == nil:
		return nil
	case !looked && lastErr != nil:
		return fmt.Errorf("wait for the objects of job %s to be gone: %w", name, lastErr)
	case len(left) > 0:
		names := make([]string, 0, 4)
		for i, o := range left {
			if i == 3 {
				names = append(names, fmt.Sprintf("and %d more", len(left)-3))
				break
			}
			names = append(names, o.String())
		}
		return fmt.Errorf("job %s: %s still there after %s", name, strings.Join(names, ", "), timeout)
	}
	return fmt.Errorf("wait for the objects of job %s to be gone: %w", name, err)
}

// objects lists the objects of job name of kinds, kind by kind; kinds the
// API server does not serve are skipped.
func (c *Client) objects(ctx context.Context, ns, name string, kinds []kind) ([]object, error) {
	var out []object
	for _, k := range kinds {
		list, err := c.Dynamic.Resource(k.gvr).Namespace(ns).List(ctx, metav1.ListOptions{LabelSelector: JobSelector(name)})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list the %s objects of job %s: %w", k.name, name, err)
		}
		for _, item := range list.Items {
			out = append(out, object{kind: k, name: item.GetName(), uid: item.GetUID()})
		}
	}
	return out, nil
}
