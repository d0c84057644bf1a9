package e2e

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/test/harness"
)

// TestServiceAccountRBAC: as a job's ServiceAccount, kubectl auth can-i
// says yes to exactly what tfsupervisor needs (docs/contract.md), and no
// to another job's objects in the same namespace, to secrets and to
// cluster-scoped objects.
func TestServiceAccountRBAC(t *testing.T) {
	t.Parallel()
	c := getCluster(t)
	ns := harness.Namespace(t, c.cp.Client(), "rbac", nil)
	c.noPods(t, ns) // only the objects matter here
	for _, name := range []string{"alpha", "beta"} {
		spec := jobSpec{name: name, replicas: []replica{{kind: "PS", n: 1, policy: "Always"}, {kind: "Worker", n: 2, policy: "OnFailure"}}}
		bins.kubectl.Must(t, c.cp.Kubeconfig(), bins.tfgen.Must(t, spec.manifest(ns), "render", "-f", "-"), "apply", "-n", ns, "-f", "-")
	}
	kubeconfig, err := c.cp.ServiceAccountKubeconfig(t.Context(), ns, "alpha-tfjob")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want bool
	}{
		// What the supervisor does.
		{[]string{"get", "configmaps/alpha"}, true},
		{[]string{"update", "configmaps/alpha"}, true},
		{[]string{"watch", "configmaps/alpha"}, true},
		{[]string{"patch", "configmaps/alpha"}, false},
		{[]string{"patch", "statefulsets.apps/alpha-worker", "--subresource=scale"}, true},
		{[]string{"get", "statefulsets.apps/alpha-worker", "--subresource=scale"}, true},   // the keeper checks for drift
		{[]string{"get", "statefulsets.apps/alpha-worker"}, true},                          // helm test reads them
		{[]string{"patch", "statefulsets.apps/alpha-ps"}, true},                            // the gate of finished replicas (the admission policy holds it to that)
		{[]string{"patch", "statefulsets.apps/alpha-keeper", "--subresource=scale"}, true}, // the keeper scales itself to 0 last
		{[]string{"patch", "statefulsets.apps/alpha-keeper"}, false},
		{[]string{"get", "statefulsets.apps/alpha-keeper"}, false},
		{[]string{"update", "statefulsets.apps/alpha-worker"}, false},
		{[]string{"update", "statefulsets.apps/alpha-worker", "--subresource=scale"}, false},
		{[]string{"get", "pods"}, true},
		{[]string{"list", "pods"}, true},
		{[]string{"watch", "pods"}, true},
		{[]string{"patch", "pods/alpha-worker-0"}, true},
		{[]string{"create", "events.events.k8s.io"}, true},
		// More on its own objects.
		{[]string{"list", "configmaps"}, false},
		{[]string{"delete", "configmaps/alpha"}, false},
		{[]string{"create", "configmaps"}, false},
		{[]string{"delete", "statefulsets.apps/alpha-worker"}, false},
		{[]string{"list", "statefulsets.apps"}, false},
		{[]string{"create", "statefulsets.apps"}, false},
		{[]string{"create", "pods"}, false},
		{[]string{"delete", "pods/alpha-worker-0"}, false},
		{[]string{"update", "pods/alpha-worker-0", "--subresource=status"}, false},
		{[]string{"create", "pods/alpha-worker-0", "--subresource=exec"}, false},
		{[]string{"create", "events"}, false}, // core events: the supervisor uses events.k8s.io
		{[]string{"update", "roles.rbac.authorization.k8s.io/alpha-tfjob"}, false},
		{[]string{"get", "services/alpha-worker"}, false},
		// Another job's objects.
		{[]string{"get", "configmaps/beta"}, false},
		{[]string{"update", "configmaps/beta"}, false},
		{[]string{"get", "statefulsets.apps/beta-worker"}, false},
		{[]string{"patch", "statefulsets.apps/beta-worker", "--subresource=scale"}, false},
		{[]string{"patch", "statefulsets.apps/beta-worker"}, false},
		{[]string{"patch", "statefulsets.apps/beta-keeper", "--subresource=scale"}, false},
		// Secrets and the cluster.
		{[]string{"get", "secrets"}, false},
		{[]string{"list", "secrets"}, false},
		{[]string{"get", "secrets/alpha-tfjob"}, false},
		{[]string{"list", "nodes"}, false},
		{[]string{"get", "nodes/node-1"}, false},
		{[]string{"get", "namespaces/" + ns}, false},
		{[]string{"list", "namespaces"}, false},
		{[]string{"create", "namespaces"}, false},
		{[]string{"get", "configmaps/alpha", "-n", "default"}, false},
	}
	// kubectl starts slowly: ask four questions at a time.
	results := make([]harness.Result, len(cases))
	var wg sync.WaitGroup
	limit := make(chan struct{}, 4)
	for i, tc := range cases {
		args := append([]string{"auth", "can-i"}, tc.args...)
		if !slices.Contains(tc.args, "-n") {
			args = append(args, "-n", ns)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			limit <- struct{}{}
			results[i] = bins.kubectl.Run(kubeconfig, nil, args...)
			<-limit
		}()
	}
	wg.Wait()
	for i, tc := range cases {
		r := results[i]
		answer := strings.TrimSpace(r.Stdout)
		if (answer == "yes") != (r.Err == nil) || (answer != "yes" && answer != "no") {
			t.Errorf("kubectl auth can-i %s: %v\n%s%s", strings.Join(tc.args, " "), r.Err, r.Stdout, r.Stderr)
			continue
		}
		if got := answer == "yes"; got != tc.want {
			t.Errorf("can-i %s: %v, want %v", strings.Join(tc.args, " "), got, tc.want)
		}
	}

	// Exactly: the ServiceAccount's rules in its namespace are the Role's
	// and those of every ServiceAccount (the namespace's default one has
	// no others).
	base := c.rules(t, ns, "default")
	var got []string
	for _, rule := range c.rules(t, ns, "alpha-tfjob") {
		if !slices.Contains(base, rule) {
			got = append(got, rule)
		}
	}
	want := []string{
		"configmaps [] [alpha-tfjob-logs] [get update]",
		"configmaps [] [alpha] [get update watch]",
		"events.events.k8s.io [] [] [create]",
		"pods [] [] [get list watch patch]",
		"statefulsets.apps [] [alpha-ps] [get patch]",
		"statefulsets.apps [] [alpha-worker] [get patch]",
		"statefulsets.apps/scale [] [alpha-keeper] [get patch]",
		"statefulsets.apps/scale [] [alpha-ps] [get patch]",
		"statefulsets.apps/scale [] [alpha-worker] [get patch]",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kubectl auth can-i --list, less the default ServiceAccount's (-want +got):\n%s", diff)
	}
}

// rules lists what ServiceAccount ns/sa may do in ns (controlplane.Rules).
func (c *cluster) rules(t *testing.T, ns, sa string) []string {
	t.Helper()
	rules, err := c.cp.Rules(t.Context(), bins.kubectl.Path, ns, sa)
	if err != nil {
		t.Fatal(err)
	}
	return rules
}
