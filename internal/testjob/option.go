package testjob

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/tfgen/tfgen/pkg/job"
)

// Option changes a replica spec. Those of the training container change
// the container named for the framework, else the first.
type Option func(*job.ReplicaSpec)

// Options is opts as one option, applied in order.
func Options(opts ...Option) Option {
	return func(s *job.ReplicaSpec) {
		for _, o := range opts {
			o(s)
		}
	}
}

// RestartPolicy sets the replicas' restartPolicy.
func RestartPolicy(p job.RestartPolicy) Option {
	return func(s *job.ReplicaSpec) { s.RestartPolicy = p }
}

// Image sets the training container's image.
func Image(image string) Option {
	return Container(func(c *corev1.Container) { c.Image = image })
}

// Command sets the training container's command.
func Command(command ...string) Option {
	return Container(func(c *corev1.Container) { c.Command = command })
}

// Shell sets the training container's command to sh -c script.
func Shell(script string) Option { return Command("sh", "-c", script) }

// Args sets the training container's args.
func Args(args ...string) Option {
	return Container(func(c *corev1.Container) { c.Args = args })
}

// Env adds variable name to the training container's env.
func Env(name, value string) Option {
	return Container(func(c *corev1.Container) { c.Env = append(c.Env, corev1.EnvVar{Name: name, Value: value}) })
}

// Container changes the training container.
func Container(edit func(*corev1.Container)) Option {
	return func(s *job.ReplicaSpec) {
		cs := s.Template.Spec.Containers
		for i := range cs {
			if cs[i].Name == string(job.TensorFlow) || cs[i].Name == string(job.MXNet) {
				edit(&cs[i])
				return
			}
		}
		edit(&cs[0])
	}
}

// Pod changes the replicas' pod spec.
func Pod(edit func(*corev1.PodSpec)) Option {
	return func(s *job.ReplicaSpec) { edit(&s.Template.Spec) }
}
