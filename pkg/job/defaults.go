package job

import corev1 "k8s.io/api/core/v1"

// Per-framework defaults (Kubeflow's).
const (
	DefaultTFPort int32 = 2222
	DefaultMXPort int32 = 9091
)

// ContainerName returns the name of the framework's training container:
// tensorflow or mxnet.
func (f Framework) ContainerName() string {
	if f == MXNet {
		return "mxnet"
	}
	return "tensorflow"
}

// PortName returns the name of the framework's port: tfjob-port or mxjob-port.
func (f Framework) PortName() string {
	if f == MXNet {
		return "mxjob-port"
	}
	return "tfjob-port"
}

// DefaultPort returns the framework's default port: 2222 or 9091.
func (f Framework) DefaultPort() int32 {
	if f == MXNet {
		return DefaultMXPort
	}
	return DefaultTFPort
}

// SetDefaults fills what j leaves unset with the canonical defaults, after
// a dialect's own defaults: replicas 1; restartPolicy Never; the port from
// the training container's port named tfjob-port / mxjob-port, else 2222 /
// 9091; a lone unnamed container named tensorflow / mxnet; jobMode dist for
// MXNet; cleanPodPolicy Running; and, for a job labelled with a Kueue
// queue (LabelKueueQueue), gang scheduling by Kueue in that queue.
//
// Running is a deliberate departure from Kubeflow, whose default became
// None in v1.6: with None, parameter servers (which never exit by
// themselves) keep running and holding their resources after the job ends,
// the complaint users report most. With Running, replicas still running
// when the job ends are stopped and finished ones are kept for their logs.
func SetDefaults(j *Job) {
	f := j.Framework()
	for _, s := range j.Replicas() {
		if s == nil {
			continue
		}
		if s.Replicas == nil {
			s.Replicas = ptr(int32(1))
		}
		if s.RestartPolicy == "" {
			s.RestartPolicy = RestartNever
		}
		cs := s.Template.Spec.Containers
		if len(cs) == 1 && cs[0].Name == "" {
			cs[0].Name = f.ContainerName()
		}
		if s.Port == nil {
			p := f.DefaultPort()
			if c := TrainingContainer(&s.Template.Spec, f); c != nil {
				if cp := namedPort(c, f.PortName()); cp != nil {
					p = cp.ContainerPort
				}
			}
			s.Port = &p
		}
	}
	if f == MXNet && j.JobMode == "" {
		j.JobMode = "dist"
	}
	if j.RunPolicy.CleanPodPolicy == "" {
		j.RunPolicy.CleanPodPolicy = CleanRunning
	}
	kueueDefaults(j)
}

// kueueDefaults: a job labelled with a Kueue queue, as Kueue's users label
// a TFJob, is gang-scheduled by Kueue in that queue, unless it chose
// another gang scheduler or another queue (which validation reports).
func kueueDefaults(j *Job) {
	q := j.Labels[LabelKueueQueue]
	if q == "" {
		return
	}
	if j.Scheduler == nil {
		j.Scheduler = &SchedulerSpec{}
	}
	if j.Scheduler.Gang == "" {
		j.Scheduler.Gang = "kueue"
	}
	if j.Scheduler.Gang != "kueue" {
		return
	}
	if j.RunPolicy.SchedulingPolicy == nil {
		j.RunPolicy.SchedulingPolicy = &SchedulingPolicy{}
	}
	if j.RunPolicy.SchedulingPolicy.Queue == "" {
		j.RunPolicy.SchedulingPolicy.Queue = q
	}
}

// TrainingContainer returns the container of pod named after framework f,
// or nil.
func TrainingContainer(pod *corev1.PodSpec, f Framework) *corev1.Container {
	for i := range pod.Containers {
		if pod.Containers[i].Name == f.ContainerName() {
			return &pod.Containers[i]
		}
	}
	return nil
}

func namedPort(c *corev1.Container, name string) *corev1.ContainerPort {
	for i := range c.Ports {
		if c.Ports[i].Name == name {
			return &c.Ports[i]
		}
	}
	return nil
}

func ptr[T any](v T) *T { return &v }
