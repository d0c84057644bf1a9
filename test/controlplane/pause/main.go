// Command pause is the test node's pod sandbox process (containerd's
// sandbox_image): it holds the pod's namespaces, reaps what is reparented
// to it, and exits on SIGTERM or SIGINT, as Kubernetes' pause does. Built
// here because the machine reaches no registry.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for s := range sig {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var ws syscall.WaitStatus
			if pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); pid <= 0 || err != nil {
				break
			}
		}
	}
}
