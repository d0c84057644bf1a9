package anchor

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

var (
	jobSets = schema.GroupVersionResource{Group: "jobset.x-k8s.io", Version: "v1alpha2", Resource: "jobsets"}
	jobs    = schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}
)

// jobSet is the same job as a JobSet, as Kubeflow Trainer v2 lays out
// a job (it runs on JobSet): one replicated Job per replica type, here the
// workers', an Indexed Job of n pods, with the same success rule: the
// JobSet completes when all its Jobs have (successPolicy All), and the
// Job when every index has succeeded (completions n, and no successPolicy
// of the Job's own that would count fewer), so it runs until the last
// worker; and a headless Service for the pods' names (JobSet's network,
// on by default).
func (s shape) jobSet(n int) []byte {
	command, _ := json.Marshal(s.command(jobSetIndex))
	var resources string
	if s.cpu != "" {
		resources = fmt.Sprintf("\n              resources:\n                requests:\n                  cpu: %q", s.cpu)
	}
	return fmt.Appendf(nil, `apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: %s
  namespace: %s
spec:
  successPolicy:
    operator: All
  replicatedJobs:
  - name: worker
    replicas: 1
    template:
      spec:
        parallelism: %d
        completions: %d
        completionMode: Indexed
        backoffLimit: 0
        template:
          spec:
            restartPolicy: Never
            containers:
            - name: tensorflow
              image: %s
              command: %s%s
`, jobName, namespace, n, n, shellImage, command, resources)
}

// jobSetSystem creates the JobSet for JobSet's controller.
type jobSetSystem struct {
	shape shape
	n     int
}

func (j jobSetSystem) apply(ctx context.Context, dyn dynamic.Interface) error {
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(j.shape.jobSet(j.n), &u.Object); err != nil {
		return err
	}
	_, err := dyn.Resource(jobSets).Namespace(namespace).Create(ctx, u, metav1.CreateOptions{})
	return err
}

// succeeded waits for the JobSet's Completed condition; it is exact when
// its Job counts every worker succeeded.
func (j jobSetSystem) succeeded(ctx context.Context, dyn dynamic.Interface, n int) (bool, error) {
	_, err := waitObject(ctx, dyn.Resource(jobSets).Namespace(namespace), func(u *unstructured.Unstructured) (bool, error) {
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			c, _ := c.(map[string]any)
			if c["status"] == "True" && c["type"] == "Completed" {
				return true, nil
			}
			if c["status"] == "True" && c["type"] == "Failed" {
				return false, fmt.Errorf("JobSet failed: %v", c["message"])
			}
		}
		return false, nil
	})
	if err != nil {
		return false, err
	}
	job, err := dyn.Resource(jobs).Namespace(namespace).Get(ctx, jobName+"-worker-0", metav1.GetOptions{})
	if err != nil {
		return false, err
	}
	done, _, _ := unstructured.NestedInt64(job.Object, "status", "succeeded")
	return done == int64(n), nil
}

func (j jobSetSystem) remove(ctx context.Context, dyn dynamic.Interface) error {
	return dyn.Resource(jobSets).Namespace(namespace).Delete(ctx, jobName, background)
}
