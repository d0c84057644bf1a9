package kube

import (
	"encoding/json"
	"fmt"
	"os"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// UserAgent identifies tfsupervisor's requests.
const UserAgent = "tfsupervisor"

// LoadConfig returns how to reach the API server: the in-cluster config
// when KUBERNETES_SERVICE_HOST is set, else the KUBECONFIG files. It
// returns nil and no error when neither is available: the supervisor then
// runs standalone.
func LoadConfig() (*rest.Config, error) {
	if os.Getenv("KUBERNETES_SERVICE_HOST") != "" {
		cfg, err := rest.InClusterConfig()
		if err != nil {
			return nil, fmt.Errorf("in-cluster config: %w", err)
		}
		return cfg, nil
	}
	if os.Getenv("KUBECONFIG") == "" {
		return nil, nil
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("load KUBECONFIG: %w", err)
	}
	return cfg, nil
}

// Client makes tfsupervisor's API calls.
type Client struct {
	rc rest.Interface
}

// New returns a Client for cfg. Requests and responses are JSON.
func New(cfg *rest.Config) (*Client, error) {
	c := rest.CopyConfig(cfg)
	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	c.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	c.ContentType = runtime.ContentTypeJSON
	c.AcceptContentTypes = runtime.ContentTypeJSON
	// No client-side rate limit (client-go's default is 5 requests a
	// second): a supervisor makes a few calls per exit, and a restart must
	// not wait for a token; the API server's priority and fairness applies.
	c.QPS, c.RateLimiter = -1, nil
	if c.UserAgent == "" {
		c.UserAgent = UserAgent
	}
	rc, err := rest.UnversionedRESTClientFor(c)
	if err != nil {
		return nil, fmt.Errorf("API client: %w", err)
	}
	return &Client{rc: rc}, nil
}

// NewForREST returns a Client making its calls through rc.
func NewForREST(rc rest.Interface) *Client { return &Client{rc: rc} }

func corePath(ns, resource string, name ...string) []string {
	return append([]string{"/api/v1/namespaces", ns, resource}, name...)
}

func groupPath(gv, ns, resource string, name ...string) []string {
	return append([]string{"/apis", gv, "namespaces", ns, resource}, name...)
}

func decode(b []byte, err error, into any, what string) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if into == nil {
		return nil
	}
	if err := json.Unmarshal(b, into); err != nil {
		return fmt.Errorf("%s: decode response: %w", what, err)
	}
	return nil
}

// IsConflict reports whether err (possibly wrapped) is a 409 Conflict.
func IsConflict(err error) bool { return apierrors.IsConflict(err) }

// IsNotFound reports whether err (possibly wrapped) is a 404 Not Found.
func IsNotFound(err error) bool { return apierrors.IsNotFound(err) }

// IsPermanent reports whether retrying the request that failed with err
// cannot help: the API answered that it is not allowed or invalid.
func IsPermanent(err error) bool {
	return apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || apierrors.IsInvalid(err) ||
		apierrors.IsBadRequest(err) || apierrors.IsMethodNotSupported(err) || apierrors.IsNotFound(err)
}
