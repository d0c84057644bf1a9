package jobgen

import "strings"

// container is one container: the training container (training) has a
// command most of the time (wrap mode), else none (sidecar mode). vols
// names the pod's volumes, which its mounts mostly name.
func (g *Generator) container(name string, training bool, vols []string) map[string]any {
	c := map[string]any{"name": name, "image": one(g, 0.95, "tensorflow/tensorflow:2.15.0", " tf:1", "busybox@sha256:abc")}
	if !training || g.chance(0.8) {
		c["command"] = []any{"python", "train.py"}
	}
	if g.chance(0.3) {
		c["args"] = []any{"--steps=$(STEPS)", "--log=/logs/$(POD_NAME)"}
	}
	set := func(p float64, k string, v func() any) {
		if g.chance(p) {
			c[k] = v()
		}
	}
	set(0.3, "ports", func() any { return g.ports() })
	set(0.4, "env", func() any { return g.env(name) })
	set(0.1, "envFrom", func() any { return []any{g.envFrom()} })
	set(0.3, "resources", func() any { return g.resources() })
	if len(vols) > 0 && g.chance(0.6) || g.chance(0.05*g.scale) {
		c["volumeMounts"] = g.mounts(vols)
	}
	set(0.1, "workingDir", func() any { return one(g, 0.7, "/app", "relative/dir") })
	set(0.1, "imagePullPolicy", func() any { return one(g, 0.7, "IfNotPresent", "Always", "Never", "always") })
	set(0.05, "terminationMessagePolicy", func() any { return one(g, 0.7, "File", "FallbackToLogsOnError", "bogus") })
	set(0.05, "terminationMessagePath", func() any { return one(g, 0.7, "/tmp/termination", "", strings.Repeat("/x", 2100)) })
	set(0.1, "readinessProbe", func() any { return g.probe() })
	set(0.1, "livenessProbe", func() any { return g.probe() })
	set(0.05, "startupProbe", func() any { return g.probe() })
	set(0.05, "lifecycle", func() any { return map[string]any{"preStop": g.handler(true)} })
	set(0.1, "securityContext", func() any { return g.securityContext() })
	set(0.05, "stdin", func() any { return true })
	set(0.05, "tty", func() any { return true })
	if !training {
		set(0.05, "restartPolicy", func() any { return one(g, 0.5, "Always", "Never", "OnFailure", "bogus") })
	}
	return c
}

func (g *Generator) ports() []any {
	var ps []any
	for i := range 1 + g.r.IntN(2) {
		p := map[string]any{"containerPort": one(g, 0.85, []int{2222, 9090}[i], 6006, 8080, 0, 65536, -1)}
		if g.chance(0.7) {
			p["name"] = one(g, 0.7, []string{"tfjob-port", "metrics"}[i], "http", "grpc", "tfjob-port", "tensorboard-http", "a-very-long-port-name",
				"HTTP", "8080", "a--b", "-a", "a b", "")
		}
		if g.chance(0.2) {
			p["protocol"] = one(g, 0.6, "TCP", "UDP", "SCTP", "tcp", "HTTP")
		}
		if g.chance(0.1) {
			p["hostPort"] = one(g, 0.7, 8080, 70000, -1)
		}
		ps = append(ps, p)
	}
	return ps
}

func (g *Generator) env(container string) []any {
	var env []any
	for range 1 + g.r.IntN(3) {
		e := map[string]any{"name": one(g, 0.6, "STEPS", "MY_VAR", "my.var", "my-var", "1ST", "A=B", "", "a b", "ÄÖ", "TF_CONFIG", "POD_NAME",
			"POD_NAMESPACE", "LD_LIBRARY_PATH", "TAB\tNAME")}
		switch g.pick(6, 3, g.bad(1)) {
		case 0:
			e["value"] = one(g, 0.8, "100", "$(POD_NAME)", "")
		case 1:
			e["valueFrom"] = g.valueFrom(container)
		default:
			e["value"] = "both"
			e["valueFrom"] = g.valueFrom(container)
		}
		env = append(env, e)
	}
	return env
}

func (g *Generator) valueFrom(container string) map[string]any {
	switch g.pick(4, 2, 1, 1, g.bad(1)) {
	case 0:
		return map[string]any{"fieldRef": map[string]any{"fieldPath": one(g, 0.5, "metadata.name", "metadata.namespace", "metadata.uid",
			"metadata.labels['team']", "metadata.annotations['a']", "spec.nodeName", "spec.serviceAccountName", "status.podIP", "status.hostIP",
			"status.podIPs", "metadata.labels", "spec.foo", "metadata.labels['bad key!']")}}
	case 1:
		ref := map[string]any{"resource": one(g, 0.6, "limits.cpu", "requests.memory", "limits.ephemeral-storage", "limits.nvidia.com/gpu", "cpu")}
		if g.chance(0.3) {
			ref["containerName"] = one(g, 0.6, container, "other")
		}
		if g.chance(0.3) {
			ref["divisor"] = one(g, 0.6, "1m", "1Mi", "0", "-1", "3")
		}
		return map[string]any{"resourceFieldRef": ref}
	case 2:
		return map[string]any{"configMapKeyRef": map[string]any{"name": one(g, 0.7, "cfg", "", "Bad_Name"), "key": one(g, 0.7, "k", "", "bad key", "a/b")}}
	case 3:
		return map[string]any{"secretKeyRef": map[string]any{"name": one(g, 0.7, "creds", "", "Bad_Name"), "key": one(g, 0.7, "token", "", "..")}}
	}
	return map[string]any{"fieldRef": map[string]any{"fieldPath": "metadata.name"}, "secretKeyRef": map[string]any{"name": "creds", "key": "k"}}
}

func (g *Generator) envFrom() map[string]any {
	e := map[string]any{}
	if g.chance(0.4) {
		e["prefix"] = one(g, 0.6, "CFG_", "1", "a=b", "")
	}
	switch g.pick(3, 3, g.bad(1), g.bad(1)) {
	case 0:
		e["configMapRef"] = map[string]any{"name": one(g, 0.7, "cfg", "Bad_Name", "")}
	case 1:
		e["secretRef"] = map[string]any{"name": one(g, 0.7, "creds", "Bad_Name", "")}
	case 2:
		e["configMapRef"] = map[string]any{"name": "cfg"}
		e["secretRef"] = map[string]any{"name": "creds"}
	}
	return e
}

// resources asks for resources by name, the extended ones mostly in
// limits.
func (g *Generator) resources() map[string]any {
	quantity := func() any {
		return one(g, 0.5, "1", "2", "500m", "1Gi", "0", "-1", "1.5", "0.5", "1e3", "10Ti")
	}
	name := func() string {
		return one(g, 0.4, "cpu", "memory", "ephemeral-storage", "nvidia.com/gpu", "example.com/fpga", "hugepages-2Mi", "gpu", "storage",
			"pods", "nvidia.com/gpu-x!", "alpha.kubernetes.io/nvidia-gpu")
	}
	r := map[string]any{}
	for _, k := range []string{"requests", "limits"} {
		if g.chance(0.6) {
			list := map[string]any{}
			for range 1 + g.r.IntN(2) {
				list[name()] = quantity()
			}
			r[k] = list
		}
	}
	if g.chance(0.05) {
		// Both names a cloud preset serves the same volumes for.
		r["limits"] = map[string]any{"nvidia.com/gpu": "1", "alpha.kubernetes.io/nvidia-gpu": "1"}
	}
	if l, ok := r["limits"].(map[string]any); ok && g.pick(1, g.bad(1)) == 0 {
		// Requests equal to the limits, as extended resources need.
		req := map[string]any{}
		for k, v := range l {
			req[k] = v
		}
		r["requests"] = req
	}
	return r
}

func (g *Generator) mounts(vols []string) []any {
	var ms []any
	for i := range 1 + g.r.IntN(2) {
		name := "missing"
		if len(vols) > 0 && g.pick(9, g.bad(1)) == 0 {
			name = vols[i%len(vols)]
		}
		m := map[string]any{"name": name, "mountPath": one(g, 0.8, []string{"/data", "/logs"}[i], "/data", "", "relative", "/tfgen/bin",
			"/var/run/secrets/kubernetes.io/serviceaccount", "/tfgen/run", "/usr/local/nvidia/lib64")}
		if g.chance(0.2) {
			m["subPath"] = one(g, 0.6, "sub", "/abs", "../up", "a/../../b")
		}
		if g.chance(0.05) {
			m["subPathExpr"] = "$(POD_NAME)"
		}
		if g.chance(0.1) {
			m["readOnly"] = true
		}
		if g.chance(0.05) {
			m["mountPropagation"] = one(g, 0.5, "None", "HostToContainer", "Bidirectional", "bogus")
		}
		ms = append(ms, m)
	}
	return ms
}

// probe is a probe (a liveness or startup probe needs a success
// threshold of 1, which it sometimes lacks).
func (g *Generator) probe() map[string]any {
	p := g.handler(false)
	set := func(k string, v ...any) {
		if g.chance(0.3) {
			p[k] = one(g, 0.7, v...)
		}
	}
	set("initialDelaySeconds", 5, -1)
	set("periodSeconds", 10, -1)
	set("timeoutSeconds", 1, -1)
	set("successThreshold", 1, 2, -1)
	set("failureThreshold", 3, -1)
	if g.chance(0.05) {
		p["terminationGracePeriodSeconds"] = one(g, 0.5, 5, 0, -1)
	}
	return p
}

// handler is a probe's or hook's action: one, none or two.
func (g *Generator) handler(hook bool) map[string]any {
	port := func() any { return one[any](g, 0.5, 8080, "http", "a-very-long-port-name", 0, 70000, "HTTP") }
	switch g.pick(3, 3, 2, 1, g.bad(1), g.bad(1)) {
	case 0:
		return map[string]any{"exec": map[string]any{"command": []any{"cat", "/tmp/ready"}}}
	case 1:
		return map[string]any{"httpGet": map[string]any{"path": "/healthz", "port": port(), "scheme": one(g, 0.8, "HTTP", "HTTPS", "http")}}
	case 2:
		return map[string]any{"tcpSocket": map[string]any{"port": port()}}
	case 3:
		if hook {
			return map[string]any{"sleep": map[string]any{"seconds": one(g, 0.6, 5, 0, -1)}}
		}
		return map[string]any{"grpc": map[string]any{"port": one(g, 0.7, 9000, 0, 70000)}}
	case 4:
		return map[string]any{}
	}
	return map[string]any{"exec": map[string]any{"command": []any{"true"}}, "tcpSocket": map[string]any{"port": 8080}}
}

func (g *Generator) securityContext() map[string]any {
	sc := map[string]any{}
	if g.chance(0.4) {
		sc["runAsUser"] = one(g, 0.7, 1000, 0, -1, 2147483648)
	}
	if g.chance(0.2) {
		sc["runAsGroup"] = one(g, 0.7, 1000, -1)
	}
	if g.chance(0.2) {
		sc["privileged"] = true
	}
	if g.chance(0.2) {
		sc["allowPrivilegeEscalation"] = false
	}
	if g.chance(0.2) {
		sc["capabilities"] = map[string]any{"add": []any{one(g, 0.7, "NET_ADMIN", "SYS_PTRACE")}}
	}
	if g.chance(0.1) {
		sc["procMount"] = one(g, 0.5, "Default", "Unmasked", "bogus")
	}
	if g.chance(0.1) {
		sc["seccompProfile"] = g.seccomp()
	}
	if g.chance(0.1) {
		sc["readOnlyRootFilesystem"] = true
	}
	return sc
}
