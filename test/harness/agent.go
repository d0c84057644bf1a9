package harness

import (
	"context"
	"sync"
	"testing"

	"github.com/tfgen/tfgen/test/nodeagent"
)

// Agent is a package's node agent (test/nodeagent), started by the first
// test that needs it and stopped when the package's tests end.
type Agent struct {
	once  sync.Once
	agent *nodeagent.Agent
	err   error
}

// Start starts the agent with config() on its first call and returns it;
// t fails if it did not start.
func (a *Agent) Start(t testing.TB, config func() nodeagent.Config) *nodeagent.Agent {
	t.Helper()
	a.once.Do(func() { a.agent, a.err = nodeagent.Start(context.Background(), config()) })
	if a.err != nil {
		t.Fatalf("node agent: %v", a.err)
	}
	return a.agent
}

// Stop stops the agent if it was started.
func (a *Agent) Stop() {
	if a.agent != nil {
		a.agent.Stop()
	}
}
