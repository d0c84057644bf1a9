package cli

import (
	"errors"
	"fmt"
	"io"
)

// ExitError asks the process to exit with Code, having said nothing more
// (the training process's exit code passes through this way).
type ExitError struct {
	Code int
}

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// ExitCode maps what Execute returned to the process's exit code: the
// ExitError's code, 1 for any other error (printed to stderr), else 0.
func ExitCode(err error, stderr io.Writer) int {
	var ee *ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.Code
	default:
		fmt.Fprintf(stderr, "tfsupervisor: %v\n", err)
		return 1
	}
}
