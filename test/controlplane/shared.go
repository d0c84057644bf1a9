package controlplane

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"testing"
)

// shared is the control plane of the current test package.
var shared struct {
	opts *Options // set by Main before any test runs
	once sync.Once
	mu   sync.Mutex // held while starting and stopping
	cp   *ControlPlane
	err  error
}

// Main runs the package's tests (m.Run) around one shared control plane,
// started with opts by the first call to Shared and stopped after the last
// test. If a test failed, the processes' recent output is printed. It
// returns the exit code for os.Exit:
//
//	func TestMain(m *testing.M) { os.Exit(controlplane.Main(m, opts)) }
//
// An interrupt (SIGINT, SIGTERM) stops the control plane, and with it the
// node's containers, mounts and network, before the test binary exits.
func Main(m *testing.M, opts Options) int {
	shared.opts = &opts
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		s, ok := <-sig
		if !ok {
			return
		}
		fmt.Fprintf(os.Stderr, "controlplane: %v: stopping\n", s)
		shared.mu.Lock() // a start in progress finishes first
		if shared.cp != nil {
			shared.cp.Stop()
		}
		os.Exit(130)
	}()
	code := m.Run()
	signal.Stop(sig)
	close(sig)
	shared.mu.Lock()
	defer shared.mu.Unlock()
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
		shared.mu.Lock()
		defer shared.mu.Unlock()
		shared.cp, shared.err = Start(context.Background(), *shared.opts)
	})
	if shared.err != nil {
		tb.Fatalf("cannot start the shared control plane: %v", shared.err)
	}
	return shared.cp
}
