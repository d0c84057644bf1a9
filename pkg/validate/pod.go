package validate

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tfgen/tfgen/pkg/input"
	"github.com/tfgen/tfgen/pkg/job"
)

// tfgen's own names in every pod it renders: a container, volume or mount
// path of the user's of the same name would clash with them.
var (
	ownContainers = []string{"tfgen-hold", "tfgen-install", "tfsupervisor"}
	ownVolumes    = []string{"tfgen-bin", "tfgen-run", "tfgen-token"}
)

// ownMounts are the paths where tfgen mounts its volumes in the training
// container c: the supervisor's binary, and in wrap mode (c has a
// command) the socket of its sidecar.
func ownMounts(c *corev1.Container) []string {
	if len(c.Command) > 0 {
		return []string{"/tfgen/bin", "/tfgen/run"}
	}
	return []string{"/tfgen/bin"}
}

// pod checks a replica type's pod template as the API server checks the
// StatefulSet's, for what passes through tfgen to it: every problem the
// server would refuse the StatefulSet for is reported here instead, at the
// user's field (issue 23: everything tfgen accepts, the API server
// accepts; test/e2e's dry-run holds it to that).
func pod(j *job.Job, t job.ReplicaType, s *job.ReplicaSpec) field.ErrorList {
	p := j.ReplicaFieldPath(t, "template").Child("spec")
	spec := &s.Template.Spec
	vols, errs := volumes(spec.Volumes, p.Child("volumes"))
	c := containerContext{vols: vols, spec: spec, grace: grace(spec), training: job.TrainingContainer(spec, j.Framework()),
		replicaPort: replicaPort(j, t, s, p)}
	names := map[string]bool{}
	for _, n := range ownContainers {
		names[n] = true
	}
	for i := range spec.InitContainers {
		errs = append(errs, c.check(&spec.InitContainers[i], p.Child("initContainers").Index(i), names, true)...)
	}
	for i := range spec.Containers {
		errs = append(errs, c.check(&spec.Containers[i], p.Child("containers").Index(i), names, false)...)
	}
	errs = append(errs, hostPorts(spec, p)...)
	return append(errs, podFields(spec, p)...)
}

// replicaPort returns the container port of replica spec s (of type t,
// its pod's spec at p) that the replica's port was taken from, as
// Kubeflow takes it from the training container's tfjob-port; nil when
// the port was not taken from the pod, or is valid. replica checks it as
// the port, so that a bad one is reported once, as itself.
func replicaPort(j *job.Job, t job.ReplicaType, s *job.ReplicaSpec, p *field.Path) *corev1.ContainerPort {
	if s.Port == nil || len(validation.IsValidPortNum(int(*s.Port))) == 0 {
		return nil // a valid port is valid in the container too
	}
	at := ""
	for i := range s.Template.Spec.Containers {
		c := &s.Template.Spec.Containers[i]
		for k := range c.Ports {
			if c.Ports[k].Name != j.Framework().PortName() {
				continue
			}
			if at == "" {
				at = j.ReplicaFieldPath(t, "port").String()
			}
			if p.Child("containers").Index(i).Child("ports").Index(k).Child("containerPort").String() == at {
				return &c.Ports[k]
			}
		}
	}
	return nil
}

// grace is the pod's terminationGracePeriodSeconds as the API server
// defaults it.
func grace(spec *corev1.PodSpec) int64 {
	if spec.TerminationGracePeriodSeconds != nil {
		return *spec.TerminationGracePeriodSeconds
	}
	return corev1.DefaultTerminationGracePeriodSeconds
}

// hostPorts checks that no two containers take the same host port, and
// that a pod on the host's network uses its ports as they are.
func hostPorts(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for _, list := range []struct {
		name       string
		containers []corev1.Container
	}{{"initContainers", spec.InitContainers}, {"containers", spec.Containers}} {
		for ci, c := range list.containers {
			for pi, port := range c.Ports {
				pp := p.Child(list.name).Index(ci).Child("ports").Index(pi).Child("hostPort")
				if spec.HostNetwork && port.HostPort != 0 && port.HostPort != port.ContainerPort {
					errs = append(errs, field.Invalid(pp, port.HostPort, "must match `containerPort` when `hostNetwork` is true"))
				}
				hostPort := port.HostPort
				if spec.HostNetwork && hostPort == 0 {
					hostPort = port.ContainerPort // the API server's default
				}
				if hostPort == 0 {
					continue
				}
				key := fmt.Sprintf("%s/%s/%d", protocol(port), port.HostIP, hostPort)
				if seen[key] {
					errs = append(errs, field.Duplicate(pp, key))
				}
				seen[key] = true
			}
		}
	}
	return errs
}

func protocol(p corev1.ContainerPort) corev1.Protocol {
	if p.Protocol == "" {
		return corev1.ProtocolTCP
	}
	return p.Protocol
}

// podFields checks the pod-level fields of a pod template.
func podFields(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	subdomain := func(name string, v string) {
		if v != "" {
			for _, msg := range validation.IsDNS1123Subdomain(v) {
				errs = append(errs, field.Invalid(p.Child(name), v, msg))
			}
		}
	}
	label := func(name string, v string) {
		if v != "" {
			for _, msg := range validation.IsDNS1123Label(v) {
				errs = append(errs, field.Invalid(p.Child(name), v, msg))
			}
		}
	}
	subdomain("serviceAccountName", spec.ServiceAccountName)
	subdomain("serviceAccount", spec.DeprecatedServiceAccount) //nolint:staticcheck // the user's, as written
	subdomain("priorityClassName", spec.PriorityClassName)
	subdomain("nodeName", spec.NodeName)
	label("hostname", spec.Hostname)
	label("subdomain", spec.Subdomain)
	if spec.RuntimeClassName != nil {
		subdomain("runtimeClassName", *spec.RuntimeClassName)
	}
	if sa, dep := spec.ServiceAccountName, spec.DeprecatedServiceAccount; sa != "" && dep != "" && sa != dep { //nolint:staticcheck
		errs = append(errs, field.Invalid(p.Child("serviceAccount"), dep, "must be the same as serviceAccountName: "+input.Quote(sa)))
	}
	if spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(p.Child("activeDeadlineSeconds"),
			"a StatefulSet's pods may not have one (the API server refuses it); the job's runPolicy.activeDeadlineSeconds bounds its run"))
	}
	errs = append(errs, labels(spec.NodeSelector, p.Child("nodeSelector"))...)
	for i, tol := range spec.Tolerations {
		errs = append(errs, toleration(tol, p.Child("tolerations").Index(i))...)
	}
	errs = append(errs, dns(spec, p)...)
	for i, ha := range spec.HostAliases {
		hp := p.Child("hostAliases").Index(i)
		errs = append(errs, validation.IsValidIP(hp.Child("ip"), ha.IP)...)
		for k, h := range ha.Hostnames {
			for _, msg := range validation.IsDNS1123Subdomain(h) {
				errs = append(errs, field.Invalid(hp.Child("hostnames").Index(k), h, msg))
			}
		}
	}
	for i, s := range spec.ImagePullSecrets {
		if s.Name != "" {
			for _, msg := range validation.IsDNS1123Subdomain(s.Name) {
				errs = append(errs, field.Invalid(p.Child("imagePullSecrets").Index(i).Child("name"), s.Name, msg))
			}
		}
	}
	if spec.ShareProcessNamespace != nil && *spec.ShareProcessNamespace && spec.HostPID {
		errs = append(errs, field.Invalid(p.Child("shareProcessNamespace"), true, "ShareProcessNamespace and HostPID cannot both be enabled"))
	}
	if spec.Priority != nil {
		errs = append(errs, field.Forbidden(p.Child("priority"), "the API server's Priority admission sets it from priorityClassName and refuses every pod that gives another value; leave it out, and set priorityClassName"))
	}
	errs = append(errs, podSecurity(spec, p)...)
	if spec.OS != nil {
		switch spec.OS.Name {
		case corev1.Linux:
		case corev1.Windows:
			errs = append(errs, field.Forbidden(p.Child("os", "name"),
				"tfgen's own containers (tfsupervisor) are Linux containers with Linux security settings, which a windows pod may not have"))
		default:
			errs = append(errs, field.NotSupported(p.Child("os", "name"), spec.OS.Name, []corev1.OSName{corev1.Linux, corev1.Windows}))
		}
	}
	return errs
}

func toleration(tol corev1.Toleration, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if tol.Key != "" {
		for _, msg := range validation.IsQualifiedName(tol.Key) {
			errs = append(errs, field.Invalid(p.Child("key"), tol.Key, msg))
		}
	}
	if tol.Key == "" && tol.Operator != corev1.TolerationOpExists {
		errs = append(errs, field.Invalid(p.Child("operator"), tol.Operator, "operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
	}
	if tol.TolerationSeconds != nil && tol.Effect != corev1.TaintEffectNoExecute {
		errs = append(errs, field.Invalid(p.Child("effect"), tol.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
	}
	switch tol.Operator {
	case corev1.TolerationOpEqual, "":
		for _, msg := range validation.IsValidLabelValue(tol.Value) {
			errs = append(errs, field.Invalid(p.Child("operator"), tol.Value, msg))
		}
	case corev1.TolerationOpExists:
		if tol.Value != "" {
			errs = append(errs, field.Invalid(p.Child("operator"), tol.Value, "value must be empty when `operator` is 'Exists'"))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("operator"), tol.Operator, []corev1.TolerationOperator{corev1.TolerationOpEqual, corev1.TolerationOpExists}))
	}
	if tol.Effect != "" && !slices.Contains([]corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}, tol.Effect) {
		errs = append(errs, field.NotSupported(p.Child("effect"), tol.Effect, []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}))
	}
	return errs
}

func dns(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	policies := []corev1.DNSPolicy{corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone}
	if spec.DNSPolicy != "" && !slices.Contains(policies, spec.DNSPolicy) {
		errs = append(errs, field.NotSupported(p.Child("dnsPolicy"), spec.DNSPolicy, policies))
	}
	if spec.DNSPolicy == corev1.DNSNone && (spec.DNSConfig == nil || len(spec.DNSConfig.Nameservers) == 0) {
		errs = append(errs, field.Required(p.Child("dnsConfig"), "must provide `dnsConfig` with at least one nameserver when `dnsPolicy` is None"))
	}
	if c := spec.DNSConfig; c != nil {
		for i, ns := range c.Nameservers {
			errs = append(errs, validation.IsValidIP(p.Child("dnsConfig", "nameservers").Index(i), ns)...)
		}
		for i, s := range c.Searches {
			for _, msg := range validation.IsDNS1123Subdomain(strings.TrimSuffix(s, ".")) {
				errs = append(errs, field.Invalid(p.Child("dnsConfig", "searches").Index(i), s, msg))
			}
		}
	}
	return errs
}

// podSecurity checks the pod's security context.
func podSecurity(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	sc := spec.SecurityContext
	if sc == nil {
		return nil
	}
	p = p.Child("securityContext")
	var errs field.ErrorList
	id := func(name string, v *int64) {
		if v != nil && (*v < 0 || *v > math.MaxInt32) {
			errs = append(errs, field.Invalid(p.Child(name), *v, validation.InclusiveRangeError(0, math.MaxInt32)))
		}
	}
	id("runAsUser", sc.RunAsUser)
	id("runAsGroup", sc.RunAsGroup)
	id("fsGroup", sc.FSGroup)
	for i, g := range sc.SupplementalGroups {
		if g < 0 || g > math.MaxInt32 {
			errs = append(errs, field.Invalid(p.Child("supplementalGroups").Index(i), g, validation.InclusiveRangeError(0, math.MaxInt32)))
		}
	}
	for i, s := range sc.Sysctls {
		sp := p.Child("sysctls").Index(i).Child("name")
		switch {
		case !sysctlName.MatchString(s.Name):
			errs = append(errs, field.Invalid(sp, s.Name, "must have at most 253 characters and match regex "+sysctlName.String()))
		case spec.HostNetwork && strings.HasPrefix(s.Name, "net."):
			errs = append(errs, field.Invalid(sp, s.Name, "may not be specified when 'hostNetwork' is true"))
		}
	}
	errs = append(errs, seccomp(sc.SeccompProfile, p.Child("seccompProfile"))...)
	return errs
}

// sysctlName is the API server's form of a sysctl's name.
var sysctlName = regexp.MustCompile(`^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$`)

// seccomp checks a seccomp profile.
func seccomp(sp *corev1.SeccompProfile, p *field.Path) field.ErrorList {
	if sp == nil {
		return nil
	}
	types := []corev1.SeccompProfileType{corev1.SeccompProfileTypeLocalhost, corev1.SeccompProfileTypeRuntimeDefault, corev1.SeccompProfileTypeUnconfined}
	switch {
	case !slices.Contains(types, sp.Type):
		return field.ErrorList{field.NotSupported(p.Child("type"), sp.Type, types)}
	case sp.Type == corev1.SeccompProfileTypeLocalhost && (sp.LocalhostProfile == nil || *sp.LocalhostProfile == ""):
		return field.ErrorList{field.Required(p.Child("localhostProfile"), "must be set when seccomp type is Localhost")}
	case sp.Type != corev1.SeccompProfileTypeLocalhost && sp.LocalhostProfile != nil:
		return field.ErrorList{field.Invalid(p.Child("localhostProfile"), *sp.LocalhostProfile, "can only be set when seccomp type is Localhost")}
	}
	return nil
}
