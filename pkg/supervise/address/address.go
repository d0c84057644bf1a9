// Package address publishes a replica's pod address for its type's
// headless Service: an EndpointSlice of the pod's own, from which cluster
// DNS answers J-t-i.J-t.NAMESPACE.svc.
//
// With `tfgen render --endpoints pod` the Services have no selector, so
// neither the endpoints controller nor the EndpointSlice controller keeps
// their endpoints: with a selector, every pod's start and end rewrites
// the one Endpoints object of its type (every address of the type, up to
// 1,000) and an EndpointSlice of up to 100, writes whose size grows with
// the job (1.9 s of the API server's CPU at 1,000 workers). A slice of
// one pod is written once, small, by the replica itself, and goes with
// the pod (its owner) through the garbage collector.
package address

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/kube"
)

// ManagedBy is the slices' endpointslice.kubernetes.io/managed-by label,
// which tells the EndpointSlice controller that they are not its own.
const ManagedBy = "tfsupervisor.tfgen.io"

// Pod is the pod whose address is published.
type Pod struct {
	// Namespace, Name and UID of the pod.
	Namespace, Name, UID string
	// IPs of the pod (status.podIPs), of either family.
	IPs []string
	// Labels of the job that the slices carry too (job name, managed-by).
	Labels map[string]string
}

// Slices returns the EndpointSlices that publish pod as replica t of
// layout l: one for each IP family of the pod's IPs. An IP that does not
// parse is an error naming it.
func Slices(l *cluster.Layout, t string, pod Pod) ([]*kube.EndpointSlice, error) {
	role, ok := l.Role(t)
	if !ok {
		return nil, fmt.Errorf("replica type %q is not one of the job's", t)
	}
	if pod.UID == "" {
		return nil, fmt.Errorf("pod %s/%s: no UID", pod.Namespace, pod.Name)
	}
	byFamily := map[string][]string{}
	var families []string
	for _, s := range pod.IPs {
		ip, err := netip.ParseAddr(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("pod %s/%s: IP %q: %w", pod.Namespace, pod.Name, s, err)
		}
		family := "IPv6"
		if ip.Unmap().Is4() {
			family, ip = "IPv4", ip.Unmap()
		}
		if _, seen := byFamily[family]; !seen {
			families = append(families, family)
		}
		byFamily[family] = append(byFamily[family], ip.String())
	}
	if len(families) == 0 {
		return nil, fmt.Errorf("pod %s/%s: no IP", pod.Namespace, pod.Name)
	}
	ready := true
	owner := kube.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID}
	target := &kube.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID}
	var out []*kube.EndpointSlice
	for _, family := range families {
		labels := map[string]string{
			"kubernetes.io/service-name":             l.Service(t),
			"endpointslice.kubernetes.io/managed-by": ManagedBy,
		}
		for k, v := range pod.Labels {
			labels[k] = v
		}
		name := pod.Name + "-" + uidPrefix(pod.UID)
		if len(families) > 1 {
			name += "-" + strings.ToLower(family)
		}
		out = append(out, &kube.EndpointSlice{
			Metadata: kube.SliceMeta{
				ObjectMeta:      kube.ObjectMeta{Name: name, Namespace: pod.Namespace, Labels: labels},
				OwnerReferences: []kube.OwnerReference{owner},
			},
			AddressType: family,
			Endpoints: []kube.Endpoint{{Addresses: byFamily[family], Hostname: pod.Name,
				Conditions: kube.EndpointConditions{Ready: &ready}, TargetRef: target}},
			Ports: []kube.EndpointPort{{Name: l.PortName(), Port: role.Port, Protocol: "TCP"}},
		})
	}
	return out, nil
}

// uidPrefix is the start of a UID that names a pod's slices: a pod of the
// same name made again (a new UID) publishes under a new name, while the
// old pod's slice waits for the garbage collector.
func uidPrefix(uid string) string {
	p, _, _ := strings.Cut(uid, "-")
	if len(p) > 8 {
		p = p[:8]
	}
	return p
}

// Creator creates EndpointSlices; *rest.Client is one.
type Creator interface {
	CreateEndpointSlice(ctx context.Context, slice *kube.EndpointSlice) error
}

// forbiddenFor is how long a Forbidden answer is retried: a RoleBinding
// applied with the pods may reach the authorizer after them, but a Role
// without the rule (edited, or rendered by an older tfgen) stays so.
var forbiddenFor = time.Minute

// Publish creates slices, retrying failures by kube.DefaultRetry until
// ctx ends; a slice that exists (published by an earlier run of the
// supervisor in the same pod) is published. It returns the first error
// that retrying cannot change, or ctx's.
func Publish(ctx context.Context, c Creator, slices []*kube.EndpointSlice, logf func(string, ...any)) error {
	start := time.Now()
	for _, s := range slices {
		err := kube.DefaultRetry.Do(ctx, func(ctx context.Context) error {
			err := c.CreateEndpointSlice(ctx, s)
			switch {
			case err == nil, kube.IsAlreadyExists(err):
				return nil
			case kube.IsForbidden(err) && time.Since(start) > forbiddenFor:
				return kube.Final(err)
			}
			return err
		}, func(attempt int, err error, wait time.Duration) {
			if attempt <= 3 || attempt%10 == 0 {
				logf("publish the pod's address: %v; again in %v", err, wait.Round(time.Millisecond))
			}
		})
		if err != nil {
			return fmt.Errorf("publish the pod's address: %w", err)
		}
	}
	return nil
}
