package address

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tfgen/tfgen/pkg/cluster"
	"github.com/tfgen/tfgen/pkg/kube"
)

var layout = &cluster.Layout{Job: "mnist", Framework: cluster.TensorFlow,
	Roles: []cluster.Role{{Type: "ps", Replicas: 1, Port: 2222}, {Type: "worker", Replicas: 3, Port: 2223}}}

func pod(ips ...string) Pod {
	return Pod{Namespace: "team", Name: "mnist-worker-2", UID: "0a1b2c3d-4e5f-6789-abcd-ef0123456789", IPs: ips,
		Labels: map[string]string{"training.kubeflow.org/job-name": "mnist"}}
}

func TestSlices(t *testing.T) {
	slices, err := Slices(layout, "worker", pod("10.1.2.3"))
	if err != nil {
		t.Fatal(err)
	}
	if len(slices) != 1 {
		t.Fatalf("got %d slices, want 1", len(slices))
	}
	got, _ := json.Marshal(slices[0])
	want := `{"apiVersion":"","kind":"","metadata":{"name":"mnist-worker-2-0a1b2c3d","namespace":"team",` +
		`"labels":{"endpointslice.kubernetes.io/managed-by":"tfsupervisor.tfgen.io","kubernetes.io/service-name":"mnist-worker","training.kubeflow.org/job-name":"mnist"},` +
		`"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"mnist-worker-2","uid":"0a1b2c3d-4e5f-6789-abcd-ef0123456789"}]},` +
		`"addressType":"IPv4","endpoints":[{"addresses":["10.1.2.3"],"hostname":"mnist-worker-2","conditions":{"ready":true},` +
		`"targetRef":{"kind":"Pod","namespace":"team","name":"mnist-worker-2","uid":"0a1b2c3d-4e5f-6789-abcd-ef0123456789"}}],` +
		`"ports":[{"name":"tfjob-port","port":2223,"protocol":"TCP"}]}`
	if string(got) != want {
		t.Errorf("slice:\n got %s\nwant %s", got, want)
	}
}

func TestSlicesDualStack(t *testing.T) {
	slices, err := Slices(layout, "worker", pod("fd00::5", " 10.1.2.3"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range slices {
		got = append(got, s.Metadata.Name+" "+s.AddressType+" "+strings.Join(s.Endpoints[0].Addresses, ","))
	}
	want := []string{"mnist-worker-2-0a1b2c3d-ipv6 IPv6 fd00::5", "mnist-worker-2-0a1b2c3d-ipv4 IPv4 10.1.2.3"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("slices %q, want %q", got, want)
	}
	mx := &cluster.Layout{Job: "mx", Framework: cluster.MXNet, Roles: []cluster.Role{{Type: "server", Replicas: 1, Port: 9091}}}
	slices, err = Slices(mx, "server", pod("10.0.0.1"))
	if err != nil || slices[0].Ports[0].Name != "mxjob-port" || slices[0].Metadata.Labels["kubernetes.io/service-name"] != "mx-server" {
		t.Errorf("MXNet slice: %v %+v", err, slices)
	}
}

func TestSlicesRefuses(t *testing.T) {
	for name, c := range map[string]struct {
		t    string
		pod  Pod
		want string
	}{
		"no IP":        {"worker", pod(""), `IP ""`},
		"no IPs":       {"worker", pod(), "no IP"},
		"bad IP":       {"worker", pod("10.1.2"), `IP "10.1.2"`},
		"unknown type": {"chief", pod("10.1.2.3"), `"chief"`},
		"no UID":       {"worker", Pod{Name: "p", IPs: []string{"10.1.2.3"}}, "no UID"},
	} {
		if _, err := Slices(layout, c.t, c.pod); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one with %s", name, err, c.want)
		}
	}
}

// creator answers each create with the next of its errors, then nil.
type creator struct {
	errs    []error
	created []string
}

func (c *creator) CreateEndpointSlice(_ context.Context, s *kube.EndpointSlice) error {
	c.created = append(c.created, s.Metadata.Name)
	if len(c.errs) > 0 {
		err := c.errs[0]
		c.errs = c.errs[1:]
		return err
	}
	return nil
}

func TestPublish(t *testing.T) {
	slices, _ := Slices(layout, "worker", pod("10.1.2.3", "fd00::5"))
	unavailable := &kube.APIError{Code: 503, Reason: "ServiceUnavailable"}
	forbidden := &kube.APIError{Code: 403, Reason: "Forbidden"}
	exists := &kube.APIError{Code: 409, Reason: "AlreadyExists"}
	c := &creator{errs: []error{unavailable, forbidden, nil, exists}}
	if err := Publish(context.Background(), c, slices, t.Logf); err != nil {
		t.Fatal(err)
	}
	if len(c.created) != 4 {
		t.Errorf("creates %q: want the first retried past 503 and 403, the second taken as made when it exists", c.created)
	}
}

func TestPublishGivesUp(t *testing.T) {
	slices, _ := Slices(layout, "worker", pod("10.1.2.3"))
	invalid := &kube.APIError{Code: 422, Reason: "Invalid"}
	c := &creator{errs: []error{invalid}}
	if err := Publish(context.Background(), c, slices, t.Logf); !errors.Is(err, invalid) || len(c.created) != 1 {
		t.Errorf("invalid slice: error %v after %d creates, want it at once", err, len(c.created))
	}

	defer func(d time.Duration) { forbiddenFor = d }(forbiddenFor)
	forbiddenFor = 0 // a Role without the rule: no RoleBinding on its way
	forbidden := &kube.APIError{Code: 403, Reason: "Forbidden"}
	c = &creator{errs: []error{forbidden, forbidden}}
	if err := Publish(context.Background(), c, slices, t.Logf); !errors.Is(err, forbidden) || len(c.created) != 1 {
		t.Errorf("forbidden: error %v after %d creates, want it given up at once", err, len(c.created))
	}
}
