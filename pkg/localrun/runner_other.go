//go:build !unix

package localrun

import (
	"errors"

	"github.com/tfgen/tfgen/pkg/supervise"
)

// defaultRunner: supervision needs process groups and Unix signals.
func defaultRunner(func(string, ...any)) (supervise.Runner, error) {
	return nil, errors.New("tfgen run needs a Unix system (Linux or macOS)")
}
