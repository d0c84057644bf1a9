package harness

import (
	"fmt"
	"os"
	"time"
)

// Suite runs a package's tests for its TestMain, which exits with the
// status it returns: run gets a fresh scratch directory, removed when it
// returns, and "name: suite took D" is printed at the end.
func Suite(name string, run func(scratch string) int) int {
	began := time.Now()
	defer func() { fmt.Printf("%s: suite took %v\n", name, time.Since(began).Round(100*time.Millisecond)) }()
	scratch, err := os.MkdirTemp("", "tfgen-"+name+"-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(scratch)
	return run(scratch)
}
