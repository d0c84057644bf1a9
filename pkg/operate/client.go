package operate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/tfgen/tfgen/pkg/kube"
	"github.com/tfgen/tfgen/pkg/record"
)

// Labels tfgen puts on every object of a job (docs/contract.md).
const (
	LabelName        = "app.kubernetes.io/name"
	LabelInstance    = "app.kubernetes.io/instance"
	LabelComponent   = "app.kubernetes.io/component"
	LabelManagedBy   = "app.kubernetes.io/managed-by"
	LabelJobName     = "training.kubeflow.org/job-name"
	LabelReplicaType = "training.kubeflow.org/replica-type"
	// ManagedBy is the value of LabelManagedBy.
	ManagedBy = "tfgen"
	// ComponentJob is the value of LabelComponent on the record ConfigMap.
	ComponentJob = "job"
)

// SupervisorContainer is the name of the sidecar-mode supervisor container.
const SupervisorContainer = "tfsupervisor"

// Client runs the operations against one cluster.
type Client struct {
	// Kube makes the typed calls.
	Kube kubernetes.Interface
	// Dynamic deletes the kinds without a typed client (PodGroups); when
	// nil, Delete uses Kube's REST client for every kind.
	Dynamic dynamic.Interface
	// Now is the time written into the record; time.Now when nil.
	Now func() time.Time
}

// New returns a Client for cfg.
func New(cfg *rest.Config) (*Client, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("API client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("API client: %w", err)
	}
	return &Client{Kube: cs, Dynamic: dyn}, nil
}

func (c *Client) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// JobSelector selects every object of job name.
func JobSelector(name string) string {
	return labels.SelectorFromSet(labels.Set{LabelInstance: name, LabelManagedBy: ManagedBy}).String()
}

// RecordSelector selects the record ConfigMaps of every job.
func RecordSelector() string {
	return labels.SelectorFromSet(labels.Set{LabelManagedBy: ManagedBy, LabelComponent: ComponentJob}).String()
}

// NotFoundError says that a namespace has no job of that name.
type NotFoundError struct {
	Namespace, Name string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("job %q not found in namespace %q", e.Name, e.Namespace)
}

// IsNotFound reports whether err says a job does not exist.
func IsNotFound(err error) bool {
	var nf *NotFoundError
	return errors.As(err, &nf)
}

// Store returns pkg/record's Store of job ns/name's record ConfigMap, on
// client-go: updates are read, mutate, write with the resourceVersion
// read, retried on conflict.
func Store(cs kubernetes.Interface, ns, name string) *record.ConfigMap {
	return &record.ConfigMap{Client: configMaps{cs}, Namespace: ns, Name: name}
}

// configMaps adapts client-go to record.ConfigMapClient. The ConfigMap
// crosses as JSON, so every field read is written back.
type configMaps struct{ cs kubernetes.Interface }

var _ record.ConfigMapClient = configMaps{}

func (c configMaps) GetConfigMap(ctx context.Context, ns, name string) (*kube.ConfigMap, error) {
	cm, err := c.cs.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, apiError(err)
	}
	return toKube(cm)
}

func (c configMaps) UpdateConfigMap(ctx context.Context, in *kube.ConfigMap) (*kube.ConfigMap, error) {
	b, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	cm := &corev1.ConfigMap{}
	if err := json.Unmarshal(b, cm); err != nil {
		return nil, err
	}
	out, err := c.cs.CoreV1().ConfigMaps(in.Namespace).Update(ctx, cm, metav1.UpdateOptions{})
	if err != nil {
		return nil, apiError(err)
	}
	return toKube(out)
}

func toKube(cm *corev1.ConfigMap) (*kube.ConfigMap, error) {
	b, err := json.Marshal(cm)
	if err != nil {
		return nil, err
	}
	out := &kube.ConfigMap{}
	return out, json.Unmarshal(b, out)
}

// apiError turns client-go's status errors into pkg/kube's, which
// record.ConfigMap tells apart: conflicts and server errors are retried,
// NotFound or Forbidden are not.
func apiError(err error) error {
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		s := se.Status()
		return &kube.APIError{Code: int(s.Code), Reason: string(s.Reason), Message: s.Message}
	}
	return err
}
