//go:build unix

package localrun

import (
	"github.com/tfgen/tfgen/pkg/supervise"
	"github.com/tfgen/tfgen/pkg/supervise/proc"
)

// defaultRunner is tfsupervisor's: process groups and one reaper.
func defaultRunner(logf func(string, ...any)) (supervise.Runner, error) {
	return proc.NewRunner(logf), nil
}
