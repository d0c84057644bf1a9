package validate_test

import corev1 "k8s.io/api/core/v1"

func tfPod() corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "tensorflow", Image: "tf"}}}}
}

func ptr[T any](v T) *T { return &v }
