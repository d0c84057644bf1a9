package tfv1alpha1

import (
	corev1 "k8s.io/api/core/v1"
)

// PSServerScript starts a standard TensorFlow gRPC server for this
// replica from TF_CONFIG and serves until killed. It runs on Python 2 and 3
// and on TensorFlow 1.x (tf.train.Server) and 2.x (tf.distribute.Server),
// and accepts the sparse cluster of dynamic workers (indices as keys).
const PSServerScript = `import json, os
import tensorflow as tf
cfg = json.loads(os.environ["TF_CONFIG"])
cluster = dict((k, dict((int(i), a) for i, a in v.items()) if isinstance(v, dict) else v) for k, v in cfg["cluster"].items())
task = cfg["task"]
Server = getattr(getattr(tf, "distribute", None), "Server", None) or tf.train.Server
Server(tf.train.ClusterSpec(cluster), job_name=task["type"], task_index=int(task["index"]), protocol="grpc").join()
`

// DefaultPSContainer is the container the operator gave a PS replica that
// has none named tensorflow: image runs PSServerScript, listening on port.
// It has a command, so tfsupervisor wraps it.
func DefaultPSContainer(image string, port int32) corev1.Container {
	return corev1.Container{
		Name:    "tensorflow",
		Image:   image,
		Command: []string{"python", "-c", PSServerScript},
		Ports:   []corev1.ContainerPort{{Name: "tfjob-port", ContainerPort: port}},
	}
}
