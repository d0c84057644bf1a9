package nodeagent

import (
	"fmt"
	"os/exec"
	"runtime"

	"golang.org/x/sys/unix"
)

// startWithHosts starts cmd in a mount namespace of its own in which the
// file hosts is bind-mounted on /etc/hosts, as the kubelet gives each pod
// its own. The namespace is made on a locked thread that forks the child
// and then ends with its goroutine (it is never unlocked), so the agent's
// other threads keep this machine's /etc/hosts. It needs CAP_SYS_ADMIN.
func startWithHosts(cmd *exec.Cmd, hosts string) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
			errc <- fmt.Errorf("unshare the mount namespace: %w", err)
			return
		}
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			errc <- fmt.Errorf("make mounts private: %w", err)
			return
		}
		if err := unix.Mount(hosts, "/etc/hosts", "", unix.MS_BIND, ""); err != nil {
			errc <- fmt.Errorf("bind %s on /etc/hosts: %w", hosts, err)
			return
		}
		errc <- cmd.Start()
	}()
	return <-errc
}
