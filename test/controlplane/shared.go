package controlplane

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
)

// shared is the control plane of the current test package.
var shared struct {
	opts *Options // set by Main before any test runs
	once sync.Once
	cp   *ControlPlane
	err  error
}

// Main runs the package's tests (m.Run) around one shared control plane,
// started with opts by the first call to Shared and stopped after the last
// test. If a test failed, the processes' recent output is printed. It
// returns the exit code for os.Exit:
//
//	func TestMain(m *testing.M) { os.Exit(controlplane.Main(m, opts)) }
func Main(m *testing.M, opts Options) int {
	shared.opts = &opts
	code := m.Run()
	if cp := shared.cp; cp != nil {
		if code != 0 {
			fmt.Fprint(os.Stderr, cp.Logs(60))
		}
		cp.Stop()
	}
	return code
}

// Shared returns the package's control plane, starting it on first use. It
// fails tb (never skips) if the control plane cannot start, for example
// because `make tools` has not been run, or if TestMain does not call Main.
func Shared(tb testing.TB) *ControlPlane {
	tb.Helper()
	if shared.opts == nil {
		tb.Fatal("controlplane.Shared: the package's TestMain must call controlplane.Main")
	}
	shared.once.Do(func() {
		shared.cp, shared.err = Start(context.Background(), *shared.opts)
	})
	if shared.err != nil {
		tb.Fatalf("cannot start the shared control plane: %v", shared.err)
	}
	return shared.cp
}
