package nodeagent

import (
	"fmt"
	"os/exec"
)

// startWithHosts starts cmd in a mount namespace of its own in which the
// file hosts is bind-mounted on /etc/hosts, as the kubelet gives each pod
// its own: util-linux's unshare and mount (CAP_SYS_ADMIN), then sh execs
// the command, so that its process is the one started.
//
// Not unshare(2) on a locked thread of the agent's: that thread would have
// to end with its goroutine, and a process whose parent thread ends gets
// its parent-death signal (the control plane's processes are started with
// Pdeathsig).
func startWithHosts(cmd *exec.Cmd, hosts string) error {
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		return fmt.Errorf("hostAliases: %w", err)
	}
	cmd.Args = append([]string{unshare, "--mount", "--propagation", "private", "sh", "-c", `mount --bind "$0" /etc/hosts && exec "$@"`, hosts}, cmd.Args...)
	cmd.Path = unshare
	return cmd.Start()
}
