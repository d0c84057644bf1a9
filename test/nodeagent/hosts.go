package nodeagent

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// hostsFile writes the pod's /etc/hosts as the kubelet manages it (its
// loopback entries, the pod's own name at its IP, then spec.hostAliases)
// into the pod's directory and returns its path; "" when the pod has no
// hostAliases, whose containers then see this machine's /etc/hosts.
//
// There is no DNS here, and every pod shares the machine's network: a test
// whose replicas must reach each other gives their pod names as
// hostAliases of 127.0.0.1, and each replica type a port of its own.
func (r *podRun) hostsFile() (string, error) {
	p := r.pod
	if len(p.Spec.HostAliases) == 0 {
		return "", nil
	}
	var b strings.Builder
	b.WriteString("# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n")
	b.WriteString("fe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n")
	host := p.Spec.Hostname
	if host == "" {
		host = p.Name
	}
	if p.Spec.Subdomain != "" {
		fmt.Fprintf(&b, "%s\t%s.%s.%s.svc.cluster.local\t%s\n", r.ip, host, p.Spec.Subdomain, p.Namespace, host)
	} else {
		fmt.Fprintf(&b, "%s\t%s\n", r.ip, host)
	}
	b.WriteString("\n# Entries added by HostAliases.\n")
	for _, a := range p.Spec.HostAliases {
		fmt.Fprintf(&b, "%s\t%s\n", a.IP, strings.Join(a.Hostnames, "\t"))
	}
	path := filepath.Join(r.dir, "etc-hosts")
	return path, os.WriteFile(path, []byte(b.String()), 0o644)
}

// start starts a container's process, with the pod's hosts file as its
// /etc/hosts when it has one (hosts_linux.go).
func (r *podRun) start(cmd *exec.Cmd) error {
	hosts, err := r.hostsFile()
	if err != nil {
		return fmt.Errorf("hosts file: %w", err)
	}
	if hosts == "" {
		return cmd.Start()
	}
	return startWithHosts(cmd, hosts)
}
