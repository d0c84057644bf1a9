package jobgen

import "strings"

// replicaSpec is one replica type's spec, its training container named
// training.
func (g *Generator) replicaSpec(n int, training string) map[string]any {
	s := map[string]any{"replicas": n, "template": g.podTemplate(training)}
	if g.chance(0.6) {
		s["restartPolicy"] = anyOf(g, "Never", "OnFailure", "Always", "ExitCode")
	}
	return s
}

func (g *Generator) podTemplate(training string) map[string]any {
	t := map[string]any{}
	if g.chance(0.2) {
		meta := map[string]any{}
		if g.chance(0.5) {
			meta["labels"] = g.labels()
		}
		if g.chance(0.5) {
			meta["annotations"] = g.annotations()
		}
		t["metadata"] = meta
	}
	t["spec"] = g.podSpec(training)
	return t
}

// podSpec is a pod template's spec: the training container, now and then
// more containers, volumes they mount and pod-level fields.
func (g *Generator) podSpec(training string) map[string]any {
	spec := map[string]any{}
	var vols []map[string]any
	for i := range one(g, 0.6, 0, 1, 2) {
		vols = append(vols, g.volume(i))
	}
	names := make([]string, len(vols))
	for i, v := range vols {
		names[i], _ = v["name"].(string)
	}
	containers := []any{g.container(training, true, names)}
	for range one(g, 0.85, 0, 1) {
		containers = append(containers, g.container(g.containerName(), false, names))
	}
	if g.chance(0.15) {
		// The training container not first: found by its name.
		containers[0], containers[len(containers)-1] = containers[len(containers)-1], containers[0]
	}
	spec["containers"] = containers
	if g.chance(0.1) {
		c := g.container(g.containerName(), false, names)
		delete(c, "ports")
		if g.chance(0.5) {
			c["restartPolicy"] = one(g, 0.8, "Always", "Never")
		}
		spec["initContainers"] = []any{c}
	}
	if len(vols) > 0 {
		l := make([]any, len(vols))
		for i, v := range vols {
			l[i] = v
		}
		spec["volumes"] = l
	}
	g.podFields(spec)
	return spec
}

// containerName names a container beside the training container.
func (g *Generator) containerName() string {
	return one(g, 0.7, "sidecar", "log-agent", "x", strings.Repeat("c", 63), strings.Repeat("c", 64), "Sidecar", "side_car", "side.car",
		"-x", "1abc", "tfsupervisor", "tfgen-install", "tfgen-hold", "tensorflow", "")
}

// podFields sets a few of the pod-level fields.
func (g *Generator) podFields(spec map[string]any) {
	set := func(p float64, k string, v func() any) {
		if g.chance(p) {
			spec[k] = v()
		}
	}
	set(0.1, "serviceAccountName", func() any {
		return one(g, 0.6, "trainer", "team.sa", "Trainer", "sa_1", strings.Repeat("s", 254), "a..b")
	})
	set(0.1, "nodeSelector", func() any {
		return anyOf[any](g, map[string]any{"disktype": "ssd"}, map[string]any{"bad key!": "x"}, map[string]any{"k": "bad value!"},
			map[string]any{"example.com/gpu": "true"})
	})
	set(0.1, "tolerations", func() any { return []any{g.toleration()} })
	set(0.1, "affinity", func() any { return g.affinity() })
	set(0.05, "hostNetwork", func() any { return true })
	set(0.05, "dnsPolicy", func() any { return one(g, 0.5, "ClusterFirst", "Default", "None", "ClusterFirstWithHostNet", "bogus") })
	set(0.05, "dnsConfig", func() any {
		return map[string]any{"nameservers": []any{one(g, 0.7, "8.8.8.8", "dns.example.com")}, "searches": []any{"svc.cluster.local"}}
	})
	set(0.05, "hostname", func() any { return one(g, 0.7, "trainer", "Bad_Host", strings.Repeat("h", 64)) })
	set(0.05, "subdomain", func() any { return one(g, 0.7, "sub", "Bad_Sub") })
	set(0.05, "priorityClassName", func() any { return one(g, 0.7, "high", "Bad_Class") })
	set(0.05, "schedulerName", func() any { return one(g, 0.7, "my-scheduler", "Bad Scheduler") })
	set(0.05, "runtimeClassName", func() any { return one(g, 0.7, "gvisor", "Bad_Runtime") })
	set(0.02, "priority", func() any { return 1000 })
	set(0.1, "securityContext", func() any { return g.podSecurityContext() })
	set(0.1, "imagePullSecrets", func() any { return []any{map[string]any{"name": one(g, 0.7, "regcred", "", "Bad_Name")}} })
	set(0.02, "activeDeadlineSeconds", func() any { return one(g, 0.5, 3600, 0) })
	set(0.1, "terminationGracePeriodSeconds", func() any { return one(g, 0.7, 30, 0, 5) })
	set(0.05, "hostAliases", func() any {
		return []any{map[string]any{"ip": one(g, 0.7, "10.0.0.1", "not-an-ip"), "hostnames": []any{one(g, 0.7, "db", "Bad_Host")}}}
	})
	set(0.05, "shareProcessNamespace", func() any { return true })
	set(0.05, "hostPID", func() any { return true })
	set(0.05, "os", func() any { return map[string]any{"name": one(g, 0.5, "linux", "windows")} })
	set(0.05, "enableServiceLinks", func() any { return false })
	set(0.05, "automountServiceAccountToken", func() any { return true })
}

func (g *Generator) toleration() map[string]any {
	return anyOf(g,
		map[string]any{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
		map[string]any{"key": "dedicated", "operator": "Equal", "value": "ml", "effect": "NoExecute", "tolerationSeconds": 60},
		map[string]any{"operator": "Exists"},
		map[string]any{"key": "", "operator": "Equal", "value": "x"},
		map[string]any{"key": "k", "operator": "bogus"},
		map[string]any{"key": "k", "operator": "Exists", "value": "v"},
		map[string]any{"key": "k", "effect": "NoSchedule", "tolerationSeconds": 10},
		map[string]any{"key": "k", "effect": "bogus"},
		map[string]any{"key": "bad key!", "operator": "Exists"},
	)
}

// affinity is a template's own affinity, which tfgen's locality terms
// join. Valid ones only: tfgen passes a template's affinity on unchecked,
// and the API server judges it.
func (g *Generator) affinity() map[string]any {
	term := func(key string) map[string]any {
		return map[string]any{"topologyKey": key, "labelSelector": map[string]any{"matchLabels": map[string]any{"app": "cache"}}}
	}
	weighted := func(w int) []any {
		return []any{map[string]any{"weight": w, "podAffinityTerm": term(anyOf(g, "kubernetes.io/hostname", "topology.kubernetes.io/zone"))}}
	}
	return anyOf(g,
		map[string]any{"nodeAffinity": map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{
			"nodeSelectorTerms": []any{map[string]any{"matchExpressions": []any{map[string]any{"key": "gpu", "operator": "Exists"}}}}}}},
		map[string]any{"podAffinity": map[string]any{"preferredDuringSchedulingIgnoredDuringExecution": weighted(anyOf(g, 1, 50, 100))}},
		map[string]any{"podAffinity": map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": []any{term("kubernetes.io/hostname")}}},
		map[string]any{"podAntiAffinity": map[string]any{"preferredDuringSchedulingIgnoredDuringExecution": weighted(10)}},
		map[string]any{},
	)
}

func (g *Generator) podSecurityContext() map[string]any {
	sc := map[string]any{}
	if g.chance(0.5) {
		sc["runAsUser"] = one(g, 0.7, 1000, -1, 2147483648)
	}
	if g.chance(0.3) {
		sc["fsGroup"] = one(g, 0.7, 2000, -1)
	}
	if g.chance(0.2) {
		sc["supplementalGroups"] = []any{one(g, 0.7, 3000, -1)}
	}
	if g.chance(0.2) {
		sc["sysctls"] = []any{map[string]any{"name": one(g, 0.7, "net.core.somaxconn", "bad name", "kernel.shm_rmid_forced"), "value": "1"}}
	}
	if g.chance(0.2) {
		sc["seccompProfile"] = g.seccomp()
	}
	return sc
}

func (g *Generator) seccomp() map[string]any {
	return anyOf(g, map[string]any{"type": "RuntimeDefault"}, map[string]any{"type": "Unconfined"}, map[string]any{"type": "Localhost"},
		map[string]any{"type": "Localhost", "localhostProfile": "profiles/audit.json"}, map[string]any{"type": "bogus"})
}
