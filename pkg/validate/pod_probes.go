package validate

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// action is what a probe or a lifecycle hook does: exactly one of these.
type action struct {
	exec      *corev1.ExecAction
	httpGet   *corev1.HTTPGetAction
	tcpSocket *corev1.TCPSocketAction
	grpc      *corev1.GRPCAction
	sleep     *corev1.SleepAction
}

func lifecycleHandler(h *corev1.LifecycleHandler) action {
	return action{exec: h.Exec, httpGet: h.HTTPGet, tcpSocket: h.TCPSocket, sleep: h.Sleep}
}

func probe(pr *corev1.Probe, grace int64, p *field.Path) field.ErrorList {
	if pr == nil {
		return nil
	}
	h := &pr.ProbeHandler
	errs := handler(action{exec: h.Exec, httpGet: h.HTTPGet, tcpSocket: h.TCPSocket, grpc: h.GRPC}, grace, p)
	for _, f := range []struct {
		name string
		v    int32
	}{{"initialDelaySeconds", pr.InitialDelaySeconds}, {"timeoutSeconds", pr.TimeoutSeconds}, {"periodSeconds", pr.PeriodSeconds},
		{"successThreshold", pr.SuccessThreshold}, {"failureThreshold", pr.FailureThreshold}} {
		if f.v < 0 {
			errs = append(errs, field.Invalid(p.Child(f.name), f.v, "must be greater than or equal to 0"))
		}
	}
	if v := pr.TerminationGracePeriodSeconds; v != nil && *v <= 0 {
		errs = append(errs, field.Invalid(p.Child("terminationGracePeriodSeconds"), *v, "must be greater than 0"))
	}
	return errs
}

// handler checks that a has exactly one action, and the action.
func handler(a action, grace int64, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	n := 0
	one := func(name string, set bool, check func() field.ErrorList) {
		if !set {
			return
		}
		if n++; n > 1 {
			errs = append(errs, field.Forbidden(p.Child(name), "may not specify more than 1 handler type"))
			return
		}
		errs = append(errs, check()...)
	}
	one("exec", a.exec != nil, func() field.ErrorList {
		if len(a.exec.Command) == 0 {
			return field.ErrorList{field.Required(p.Child("exec", "command"), "")}
		}
		return nil
	})
	one("httpGet", a.httpGet != nil, func() field.ErrorList {
		errs := portNumOrName(a.httpGet.Port, p.Child("httpGet", "port"))
		errs = append(errs, oneOf(p.Child("httpGet", "scheme"), a.httpGet.Scheme, corev1.URISchemeHTTP, corev1.URISchemeHTTPS)...)
		for _, hd := range a.httpGet.HTTPHeaders {
			for _, msg := range validation.IsHTTPHeaderName(hd.Name) {
				errs = append(errs, field.Invalid(p.Child("httpGet", "httpHeaders"), hd.Name, msg))
			}
		}
		return errs
	})
	one("tcpSocket", a.tcpSocket != nil, func() field.ErrorList { return portNumOrName(a.tcpSocket.Port, p.Child("tcpSocket", "port")) })
	one("grpc", a.grpc != nil, func() field.ErrorList {
		return portNumOrName(intstr.FromInt32(a.grpc.Port), p.Child("grpc", "port"))
	})
	one("sleep", a.sleep != nil, func() field.ErrorList {
		if s := a.sleep.Seconds; s < 0 || s > grace {
			return field.ErrorList{field.Invalid(p.Child("sleep"), s, fmt.Sprintf("must be non-negative and less than terminationGracePeriodSeconds (%d)", grace))}
		}
		return nil
	})
	if n == 0 {
		errs = append(errs, field.Required(p, "must specify a handler type"))
	}
	return errs
}

func portNumOrName(port intstr.IntOrString, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if port.Type == intstr.String {
		for _, msg := range validation.IsValidPortName(port.StrVal) {
			errs = append(errs, field.Invalid(p, port.StrVal, msg))
		}
		return errs
	}
	for _, msg := range validation.IsValidPortNum(port.IntValue()) {
		errs = append(errs, field.Invalid(p, port.IntValue(), msg))
	}
	return errs
}
