package validate

import (
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// containerContext is what a pod's containers are checked against.
type containerContext struct {
	// vols are the pod's volumes that are valid, by name.
	vols map[string]corev1.VolumeSource
	spec *corev1.PodSpec
	// grace is the pod's terminationGracePeriodSeconds.
	grace int64
	// training is the training container, where tfgen mounts its own
	// volumes.
	training *corev1.Container
	// replicaPort is the container port that the replica took its port
	// from (the training container's tfjob-port), whose containerPort is
	// checked as the replica's port; nil when there is none.
	replicaPort *corev1.ContainerPort
}

// check checks container c at path p, an init container when init;
// names holds the names of the containers before it (and tfgen's own), to
// which it adds c's.
func (cc containerContext) check(c *corev1.Container, p *field.Path, names map[string]bool, init bool) field.ErrorList {
	var errs field.ErrorList
	switch {
	case c.Name == "":
		errs = append(errs, field.Required(p.Child("name"), ""))
	case names[c.Name] && slices.Contains(ownContainers, c.Name):
		errs = append(errs, field.Duplicate(p.Child("name"), c.Name+" (tfgen's own container of that name is in every pod it renders; rename yours)"))
	case names[c.Name]:
		errs = append(errs, field.Duplicate(p.Child("name"), c.Name))
	default:
		for _, msg := range validation.IsDNS1123Label(c.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), c.Name, msg))
		}
	}
	names[c.Name] = true
	if c.Image != strings.TrimSpace(c.Image) {
		errs = append(errs, field.Invalid(p.Child("image"), c.Image, "must not have leading or trailing whitespace"))
	}
	errs = append(errs, ports(c.Ports, p.Child("ports"), cc.replicaPort)...)
	errs = append(errs, envVars(c.Env, p.Child("env"))...)
	errs = append(errs, envFrom(c.EnvFrom, p.Child("envFrom"))...)
	errs = append(errs, resources(c.Resources, p.Child("resources"))...)
	var own []string
	if c == cc.training {
		own = ownMounts(c)
	}
	errs = append(errs, mounts(c, cc.vols, own, p.Child("volumeMounts"))...)
	errs = append(errs, probe(c.ReadinessProbe, cc.grace, p.Child("readinessProbe"))...)
	errs = append(errs, probe(c.LivenessProbe, cc.grace, p.Child("livenessProbe"))...)
	errs = append(errs, probe(c.StartupProbe, cc.grace, p.Child("startupProbe"))...)
	if c.ReadinessProbe != nil && c.ReadinessProbe.TerminationGracePeriodSeconds != nil {
		errs = append(errs, field.Invalid(p.Child("readinessProbe", "terminationGracePeriodSeconds"), *c.ReadinessProbe.TerminationGracePeriodSeconds, "must not be set for readinessProbes"))
	}
	for _, pr := range []struct {
		name  string
		probe *corev1.Probe
	}{{"livenessProbe", c.LivenessProbe}, {"startupProbe", c.StartupProbe}} {
		if pr.probe != nil && pr.probe.SuccessThreshold > 1 {
			errs = append(errs, field.Invalid(p.Child(pr.name, "successThreshold"), pr.probe.SuccessThreshold, "must be 1"))
		}
	}
	if l := c.Lifecycle; l != nil {
		if l.PostStart != nil {
			errs = append(errs, handler(lifecycleHandler(l.PostStart), cc.grace, p.Child("lifecycle", "postStart"))...)
		}
		if l.PreStop != nil {
			errs = append(errs, handler(lifecycleHandler(l.PreStop), cc.grace, p.Child("lifecycle", "preStop"))...)
		}
	}
	if init && (c.RestartPolicy == nil || *c.RestartPolicy != corev1.ContainerRestartPolicyAlways) {
		// An init container that runs to its end, not a native sidecar.
		for _, f := range []struct {
			name string
			set  bool
		}{{"lifecycle", c.Lifecycle != nil}, {"livenessProbe", c.LivenessProbe != nil}, {"readinessProbe", c.ReadinessProbe != nil}, {"startupProbe", c.StartupProbe != nil}} {
			if f.set {
				errs = append(errs, field.Forbidden(p.Child(f.name), "may not be set for init containers without restartPolicy=Always"))
			}
		}
	}
	errs = append(errs, oneOf(p.Child("imagePullPolicy"), c.ImagePullPolicy, corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever)...)
	errs = append(errs, oneOf(p.Child("terminationMessagePolicy"), c.TerminationMessagePolicy, corev1.TerminationMessageReadFile, corev1.TerminationMessageFallbackToLogsOnError)...)
	if c.RestartPolicy != nil {
		errs = append(errs, oneOf(p.Child("restartPolicy"), *c.RestartPolicy, corev1.ContainerRestartPolicyAlways, corev1.ContainerRestartPolicyNever, corev1.ContainerRestartPolicyOnFailure)...)
	}
	return append(errs, security(c.SecurityContext, cc.spec, p.Child("securityContext"))...)
}

// oneOf checks an enum field: "" (the API server's default) or one of
// values.
func oneOf[T ~string](p *field.Path, v T, values ...T) field.ErrorList {
	if v == "" || slices.Contains(values, v) {
		return nil
	}
	return field.ErrorList{field.NotSupported(p, v, values)}
}

// ports checks a container's ports at p, but for the containerPort of
// replicaPort, checked as the replica's port.
func ports(ps []corev1.ContainerPort, p *field.Path, replicaPort *corev1.ContainerPort) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i := range ps {
		port := &ps[i]
		pp := p.Index(i)
		if port.Name != "" {
			if msgs := validation.IsValidPortName(port.Name); len(msgs) > 0 {
				for _, msg := range msgs {
					errs = append(errs, field.Invalid(pp.Child("name"), port.Name, msg))
				}
			} else if names[port.Name] {
				errs = append(errs, field.Duplicate(pp.Child("name"), port.Name))
			}
			names[port.Name] = true
		}
		checkContainerPort := port != replicaPort
		if port.ContainerPort == 0 && checkContainerPort {
			errs = append(errs, field.Required(pp.Child("containerPort"), ""))
		}
		for _, n := range []struct {
			name  string
			v     int32
			check bool
		}{{"containerPort", port.ContainerPort, checkContainerPort}, {"hostPort", port.HostPort, true}} {
			if n.v != 0 && n.check {
				for _, msg := range validation.IsValidPortNum(int(n.v)) {
					errs = append(errs, field.Invalid(pp.Child(n.name), n.v, msg))
				}
			}
		}
		errs = append(errs, oneOf(pp.Child("protocol"), port.Protocol, corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP)...)
	}
	return errs
}

// security checks a container's security context.
func security(sc *corev1.SecurityContext, spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	if sc == nil {
		return nil
	}
	var errs field.ErrorList
	for _, id := range []struct {
		name string
		v    *int64
	}{{"runAsUser", sc.RunAsUser}, {"runAsGroup", sc.RunAsGroup}} {
		if id.v != nil && (*id.v < 0 || *id.v > math.MaxInt32) {
			errs = append(errs, field.Invalid(p.Child(id.name), *id.v, validation.InclusiveRangeError(0, math.MaxInt32)))
		}
	}
	if sc.Privileged != nil && *sc.Privileged && sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation {
		errs = append(errs, field.Invalid(p, sc, "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"))
	}
	if sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation && sc.Capabilities != nil && slices.Contains(sc.Capabilities.Add, "CAP_SYS_ADMIN") {
		errs = append(errs, field.Invalid(p, sc, "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"))
	}
	if sc.ProcMount != nil {
		errs = append(errs, oneOf(p.Child("procMount"), *sc.ProcMount, corev1.DefaultProcMount, corev1.UnmaskedProcMount)...)
		if *sc.ProcMount == corev1.UnmaskedProcMount && (spec.HostUsers == nil || *spec.HostUsers) {
			errs = append(errs, field.Invalid(p.Child("procMount"), *sc.ProcMount, "`hostUsers` must be false to use `Unmasked`"))
		}
	}
	return append(errs, seccomp(sc.SeccompProfile, p.Child("seccompProfile"))...)
}
