//go:build !linux

package nodeagent

import (
	"errors"
	"os/exec"
)

// startWithHosts fails: a hosts file of the pod's own needs Linux mount
// namespaces.
func startWithHosts(cmd *exec.Cmd, hosts string) error {
	return errors.New("hostAliases need a mount namespace (Linux)")
}
